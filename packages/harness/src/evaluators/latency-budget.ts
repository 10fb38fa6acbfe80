import { z } from 'zod';
import { isError } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z.strictObject({
  /** Maximum seconds for the agent's reply. */
  max: z.number().positive(),
  /** Also (or instead) bound the time to the first streamed token, in seconds. */
  max_ttft: z.number().positive().optional(),
});

/**
 * Passes when the agent answered within `max` seconds (reported latency, else the runner's wall clock).
 * @example { name: latency_budget, options: { max: 2.5 } }
 */
export const latencyBudget = defineEvaluator({
  name: 'latency_budget',
  example: { max: 5 },
  description:
    'Agent latency (and optionally time to first token) is within a budget in seconds (options: max, max_ttft).',
  options: Options,
  create(opts) {
    return {
      name: 'latency_budget',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('latency_budget', output);
        const problems: string[] = [];
        if (output.latency === null) problems.push('latency was not recorded');
        else if (output.latency > opts.max) problems.push(`latency ${output.latency.toFixed(3)}s exceeds ${opts.max}s`);
        if (opts.max_ttft !== undefined) {
          if (output.time_to_first_token === null) problems.push('time to first token was not recorded');
          else if (output.time_to_first_token > opts.max_ttft) {
            problems.push(`time to first token ${output.time_to_first_token.toFixed(3)}s exceeds ${opts.max_ttft}s`);
          }
        }
        const passed = problems.length === 0;
        return result({
          evaluator: 'latency_budget',
          score: passed ? 1 : 0,
          passed,
          explanation: passed ? `latency ${output.latency?.toFixed(3)}s within ${opts.max}s` : problems.join('; '),
          details: {
            latency: output.latency,
            time_to_first_token: output.time_to_first_token,
            max: opts.max,
            max_ttft: opts.max_ttft ?? null,
          },
        });
      },
    };
  },
});
