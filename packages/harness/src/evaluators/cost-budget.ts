import { z } from 'zod';
import { isError } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z.strictObject({
  /** Maximum USD the agent may spend on this case. */
  max: z.number().min(0),
  /** Pass when the agent reported no cost (default: fail, since the budget cannot be verified). */
  allow_missing: z.boolean().default(false),
});

/**
 * Passes when the agent's reported cost for the case is within `max` USD.
 * @example { name: cost_budget, options: { max: 0.02 } }
 */
export const costBudget = defineEvaluator({
  name: 'cost_budget',
  example: { max: 0.01 },
  description: "Agent's cost for the case is within a USD budget (options: max, allow_missing).",
  options: Options,
  create(opts) {
    return {
      name: 'cost_budget',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('cost_budget', output);
        if (output.cost === null) {
          return result({
            evaluator: 'cost_budget',
            score: opts.allow_missing ? 1 : 0,
            passed: opts.allow_missing,
            explanation: `the agent reported no cost${opts.allow_missing ? ' (allowed)' : '; cannot check the budget'}`,
            details: { cost: null, max: opts.max },
          });
        }
        const passed = output.cost <= opts.max;
        const est = output.cost_is_estimated ? ' (estimated)' : '';
        return result({
          evaluator: 'cost_budget',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `cost $${output.cost.toFixed(6)}${est} within $${opts.max}`
            : `cost $${output.cost.toFixed(6)}${est} exceeds $${opts.max}`,
          details: { cost: output.cost, estimated: output.cost_is_estimated, max: opts.max },
        });
      },
    };
  },
});
