import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * The lab's MCP server on stdio, for agents that launch their MCP server themselves (`--agent-transport stdio`).
 * The run's state (simulator, control plane, evidence) lives in the campaign process, so this process relays each
 * JSON-RPC message from stdin to the run's Streamable HTTP endpoint (`SOCLAB_MCP_URL`, bearer `SOCLAB_MCP_TOKEN`)
 * and writes the replies to stdout. It adds no decision of its own: mediation happens behind the endpoint.
 */

export interface StdioBridgeOptions {
  url: string;
  token: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON-RPC messages in a Streamable HTTP reply (a JSON body or an SSE stream of `data:` lines). */
function repliesOf(contentType: string, text: string): unknown[] {
  if (contentType.includes('text/event-stream')) {
    return text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5).trim()) as unknown);
  }
  if (text.trim() === '') return [];
  const body = JSON.parse(text) as unknown;
  return Array.isArray(body) ? body : [body];
}

/** Relay until stdin closes; resolves then. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const transport = new StdioServerTransport(
    options.stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    options.stdout as ConstructorParameters<typeof StdioServerTransport>[1],
  );
  let protocolVersion: string | null = null;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  const relay = async (message: JSONRPCMessage): Promise<void> => {
    const id = isObject(message) && 'id' in message && 'method' in message ? (message as Json).id : undefined;
    const fail = async (text: string) => {
      if (id === undefined) return;
      await transport.send({ jsonrpc: '2.0', id, error: { code: -32603, message: text } } as JSONRPCMessage);
    };
    let res: Response;
    try {
      res = await fetch(options.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
        },
        body: JSON.stringify(message),
      });
    } catch {
      await fail('the lab run is not reachable (it may have ended)');
      return;
    }
    const text = await res.text();
    if (res.status === 202) return;
    let replies: unknown[];
    try {
      replies = repliesOf(res.headers.get('content-type') ?? '', text);
    } catch {
      await fail(`the lab answered HTTP ${res.status} without a JSON-RPC reply`);
      return;
    }
    for (const reply of replies) {
      if (isObject(reply) && isObject(reply.result) && typeof reply.result.protocolVersion === 'string') {
        protocolVersion = reply.result.protocolVersion;
      }
      await transport.send(reply as JSONRPCMessage);
    }
  };
  transport.onmessage = (message) => {
    void relay(message);
  };
  await transport.start();
  await closed;
}
