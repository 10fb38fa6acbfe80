import { z } from 'zod';
import { isError, toolCalls } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { outOfBounds } from './support/bounds.js';

const Options = z
  .strictObject({
    /** What counts as a step: tool calls (default), trace messages, assistant messages, or trace spans. */
    count: z.enum(['tool_calls', 'messages', 'assistant_messages', 'spans']).default('tool_calls'),
    min: z.number().int().min(0).optional(),
    max: z.number().int().min(0).optional(),
  })
  .superRefine((o, ctx) => {
    if (o.min === undefined && o.max === undefined)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'give min and/or max' });
    if (o.min !== undefined && o.max !== undefined && o.min > o.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min must be <= max' });
  });

/**
 * Passes when the number of agent steps is within bounds (catches loops and give-ups).
 * @example { name: step_count, options: { max: 8 } }
 */
export const stepCount = defineEvaluator({
  name: 'step_count',
  example: { max: 5 },
  description: 'Number of agent steps (tool calls, messages or spans) is within min/max bounds.',
  options: Options,
  create(opts) {
    return {
      name: 'step_count',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('step_count', output);
        const trace = output.trace;
        const n =
          opts.count === 'tool_calls'
            ? toolCalls(output).length
            : opts.count === 'spans'
              ? (trace?.spans.length ?? 0)
              : opts.count === 'messages'
                ? (trace?.messages.length ?? 0)
                : (trace?.messages.filter((m) => m.role === 'assistant').length ?? 0);
        const unit = opts.count.replace('_', ' ');
        const why = outOfBounds(n, opts, unit);
        return result({
          evaluator: 'step_count',
          score: why ? 0 : 1,
          passed: why === null,
          explanation: why ?? `${n} ${unit} within bounds`,
          details: { steps: n, count: opts.count, min: opts.min ?? null, max: opts.max ?? null },
        });
      },
    };
  },
});
