import { z } from 'zod';
import { isError, toolCalls } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z.strictObject({
  /** Highest acceptable share of failed tool calls (0 = none may fail). */
  max: z.number().min(0).max(1).default(0),
});

/**
 * Share of the agent's tool calls that failed (status "error"); passes when it is at most `max`.
 * Score is 1 - error rate. No tool calls scores 1.
 * @example { name: tool_error_rate, options: { max: 0.2 } }
 */
export const toolErrorRate = defineEvaluator({
  name: 'tool_error_rate',
  description: 'Share of tool calls that failed is at most max (default 0); score = 1 - error rate.',
  options: Options,
  create(opts) {
    return {
      name: 'tool_error_rate',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('tool_error_rate', output);
        const calls = toolCalls(output);
        const failed = calls.filter((c) => c.status === 'error');
        const rate = calls.length === 0 ? 0 : failed.length / calls.length;
        const passed = rate <= opts.max;
        return result({
          evaluator: 'tool_error_rate',
          score: 1 - rate,
          passed,
          explanation:
            calls.length === 0
              ? 'no tool calls'
              : `${failed.length} of ${calls.length} tool call(s) failed (${(rate * 100).toFixed(1)}%, max ${(opts.max * 100).toFixed(1)}%)${failed.length ? `: ${[...new Set(failed.map((c) => c.tool_name))].join(', ')}` : ''}`,
          details: { calls: calls.length, failed: failed.length, rate, failed_tools: failed.map((c) => c.tool_name) },
        });
      },
    };
  },
});
