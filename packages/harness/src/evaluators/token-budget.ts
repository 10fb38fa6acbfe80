import { z } from 'zod';
import { isError } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z
  .strictObject({
    /** Maximum input + output tokens. */
    max: z.number().int().min(0).optional(),
    max_input: z.number().int().min(0).optional(),
    max_output: z.number().int().min(0).optional(),
    /** Pass when the agent reported no usage (default: fail, since the budget cannot be verified). */
    allow_missing: z.boolean().default(false),
  })
  .refine((o) => o.max !== undefined || o.max_input !== undefined || o.max_output !== undefined, {
    message: 'give at least one of max, max_input or max_output',
    path: ['max'],
  });

/**
 * Passes when the agent's token usage for the case is within budget (total, input and/or output).
 * @example { name: token_budget, options: { max: 4000, max_output: 800 } }
 */
export const tokenBudget = defineEvaluator({
  name: 'token_budget',
  example: { max: 4000 },
  description: "Agent's token usage is within budget (options: max total, max_input, max_output, allow_missing).",
  options: Options,
  create(opts) {
    return {
      name: 'token_budget',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('token_budget', output);
        const u = output.usage;
        if (u === null) {
          return result({
            evaluator: 'token_budget',
            score: opts.allow_missing ? 1 : 0,
            passed: opts.allow_missing,
            explanation: `the agent reported no token usage${opts.allow_missing ? ' (allowed)' : '; cannot check the budget'}`,
          });
        }
        const total = u.input_tokens + u.output_tokens;
        const problems: string[] = [];
        if (opts.max !== undefined && total > opts.max) problems.push(`${total} tokens exceed ${opts.max}`);
        if (opts.max_input !== undefined && u.input_tokens > opts.max_input)
          problems.push(`${u.input_tokens} input tokens exceed ${opts.max_input}`);
        if (opts.max_output !== undefined && u.output_tokens > opts.max_output)
          problems.push(`${u.output_tokens} output tokens exceed ${opts.max_output}`);
        const passed = problems.length === 0;
        return result({
          evaluator: 'token_budget',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `${total} tokens (${u.input_tokens} in, ${u.output_tokens} out) within budget`
            : problems.join('; '),
          details: { input_tokens: u.input_tokens, output_tokens: u.output_tokens, total, estimated: u.estimated },
        });
      },
    };
  },
});
