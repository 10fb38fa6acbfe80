import { defineAdapter } from './base.js';
import { McpOptions } from './mcp/options.js';
import { withRateLimit } from './rate-limit.js';

/**
 * `mcp`: an MCP server over stdio or Streamable HTTP. In agent mode one tool (e.g. `run_agent`) is the agent;
 * in tools mode each case names the tool calls to make, for direct tool tests. Every call is recorded as a
 * ToolCallRecord with arguments, result, duration and status.
 *
 * @example
 *   agent:
 *     adapter: mcp
 *     options: { command: node server.mjs, tool: run_agent, call_timeout: 30 }
 */
export const mcpAdapter = defineAdapter({
  name: 'mcp',
  description: 'MCP server over stdio or Streamable HTTP: one tool as the agent, or direct tool calls',
  options: McpOptions,
  async create(options, ctx) {
    const { McpAgent } = await import('./mcp/agent.js');
    return withRateLimit(new McpAgent(options, ctx), options);
  },
});
