import { z } from 'zod';
import { isError, toolCalls } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z.strictObject({
  /** Tool (or tools, all required) the agent must have invoked. */
  required_tool: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('database_query'),
  /**
   * Also accept server-qualified names ("db.database_query", "db__database_query", "db/database_query"),
   * as MCP clients often prefix tools with the server name.
   */
  allow_namespaced: z.boolean().default(true),
});

/**
 * The seed's MCP example: passes when the required tool was invoked (in tool_calls or the trace).
 * Works with any adapter's tool calls, MCP or not.
 * @example { name: mcp_tool_usage, options: { required_tool: database_query } }
 */
export const mcpToolUsage = defineEvaluator({
  name: 'mcp_tool_usage',
  description: 'Required MCP tool(s) were invoked, accepting server-qualified names (option: required_tool).',
  options: Options,
  create(opts) {
    const required = Array.isArray(opts.required_tool) ? opts.required_tool : [opts.required_tool];
    const matches = (name: string, want: string) =>
      name === want ||
      (opts.allow_namespaced && (name.endsWith(`.${want}`) || name.endsWith(`__${want}`) || name.endsWith(`/${want}`)));
    return {
      name: 'mcp_tool_usage',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('mcp_tool_usage', output);
        const invoked = toolCalls(output).map((c) => c.tool_name);
        const missing = required.filter((want) => !invoked.some((n) => matches(n, want)));
        const passed = missing.length === 0;
        return result({
          evaluator: 'mcp_tool_usage',
          score: (required.length - missing.length) / required.length,
          passed,
          explanation: passed
            ? `required tool${required.length > 1 ? 's' : ''} ${required.map((r) => `'${r}'`).join(', ')} invoked`
            : `required tool${missing.length > 1 ? 's' : ''} ${missing.map((r) => `'${r}'`).join(', ')} missing (invoked: ${invoked.join(', ') || 'none'})`,
          details: { invoked_tools: invoked, required, missing },
        });
      },
    };
  },
});
