import { z } from 'zod';
import {
  defineBuiltinMetric,
  includedSpend,
  judgeTotals,
  meanIntervalFor,
  SpendInclude,
  usd,
} from './support/common.js';

const Options = z.object({ include: SpendInclude });

/**
 * Total money spent in USD, split into the agent's cost (AgentOutput.cost) and LLM-judge cost
 * (evaluation details.judge.cost); details carry the per-case mean and its bootstrap interval.
 */
export const cost = defineBuiltinMetric({
  name: 'cost',
  description: 'Total USD spent, agent and judge split in details (per-case mean with bootstrap interval)',
  direction: 'lower_is_better',
  options: Options,
  compute(results, opts) {
    let agent = 0;
    let judge = 0;
    let reported = 0;
    let estimated = 0;
    let unpriced = 0;
    const perCase: number[] = [];
    for (const r of results) {
      const a = r.output.cost ?? 0;
      if (r.output.cost !== null) reported++;
      if (r.output.cost_is_estimated) estimated++;
      const totals = judgeTotals(r);
      const j = totals.cost;
      if (totals.unpriced) unpriced++;
      agent += a;
      judge += j;
      perCase.push(includedSpend(opts.include, a, j));
    }
    const value = includedSpend(opts.include, agent, judge);
    const perCaseMean = results.length === 0 ? 0 : value / results.length;
    // A judge model with no known price adds $0: say so rather than show a total that looks complete.
    const incomplete = unpriced > 0 && opts.include !== 'agent';
    return {
      value,
      formatted_value: incomplete
        ? `${usd(value)} (incomplete: ${unpriced} run(s) with an unpriced judge)`
        : usd(value),
      sample_size: results.length,
      details: {
        include: opts.include,
        total_cost: agent + judge,
        agent_cost: agent,
        judge_cost: judge,
        per_case: perCaseMean,
        per_case_interval: meanIntervalFor(results, perCase),
        reported_runs: reported,
        estimated_runs: estimated,
        judge_unpriced_runs: unpriced,
        judge_cost_complete: unpriced === 0,
      },
    };
  },
});
