import { type ListToolsResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { sortedJson } from '../contracts/canonical.js';
import { ALERT_RESOURCE, LAB_TOOL_DESCRIPTORS, TASK_PROMPT, TASK_RESOURCE } from './catalog.js';
import type { McpRunSession } from './session.js';

export const LAB_SERVER_NAME = 'soclab-lab';
export const LAB_SERVER_VERSION = '1.0.0';

/**
 * The lab's MCP server for one run: tools (the ten simulator tools plus `submit_finding` and `get_action_status`),
 * the task as the prompt `investigate_alert`, and the alert and task as resources. Every `tools/call` goes to the
 * run's session, which mediates it; the server itself decides nothing. Low-level handlers are used (not
 * `McpServer.registerTool`) so unknown tools and schema-violating arguments reach the control plane and are refused
 * there with a reason code, as the orchestrator's proposals are, instead of being dropped by the SDK.
 *
 * @example
 *   const server = createLabMcpServer(session);
 *   await server.connect(transport);
 */
export function createLabMcpServer(session: McpRunSession): Server {
  const server = new Server(
    { name: LAB_SERVER_NAME, version: LAB_SERVER_VERSION },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions: session.taskText(),
    },
  );
  // The descriptors' schemas are plain JSON Schema objects (from the tool catalogue); the SDK types them narrower.
  const tools = LAB_TOOL_DESCRIPTORS.map((t) => ({
    ...t,
    annotations: { ...t.annotations },
    _meta: { ...t._meta },
  })) as unknown as ListToolsResult['tools'];
  server.setRequestHandler('tools/list', () => ({ tools }));
  server.setRequestHandler('tools/call', async (request) => {
    const params = request.params as { name?: unknown; arguments?: unknown };
    return session.callTool(params.name, params.arguments);
  });
  server.setRequestHandler('prompts/list', () => ({
    prompts: [
      {
        name: TASK_PROMPT,
        title: 'Investigate the alert',
        description: 'The task and the alert (untrusted data) of this run',
        arguments: [],
      },
    ],
  }));
  server.setRequestHandler('prompts/get', (request) => {
    if (request.params.name !== TASK_PROMPT) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt; the lab has '${TASK_PROMPT}'`);
    }
    return {
      description: 'Investigate the alert and submit a grounded finding',
      messages: [
        { role: 'user' as const, content: { type: 'text' as const, text: session.taskText() } },
        { role: 'user' as const, content: { type: 'text' as const, text: sortedJson(session.alertDocument()) } },
      ],
    };
  });
  server.setRequestHandler('resources/list', () => ({
    resources: [
      {
        uri: ALERT_RESOURCE,
        name: 'alert',
        title: 'The alert (untrusted data)',
        mimeType: 'application/json',
      },
      { uri: TASK_RESOURCE, name: 'task', title: 'The task', mimeType: 'text/plain' },
    ],
  }));
  server.setRequestHandler('resources/read', (request) => {
    const uri = request.params.uri;
    if (uri === ALERT_RESOURCE) {
      return { contents: [{ uri, mimeType: 'application/json', text: sortedJson(session.alertDocument()) }] };
    }
    if (uri === TASK_RESOURCE) return { contents: [{ uri, mimeType: 'text/plain', text: session.taskText() }] };
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown resource');
  });
  return server;
}
