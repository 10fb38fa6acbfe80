import { z } from 'zod';
import { defineBuiltinMetric, judgeTotals, meanIntervalFor, usd } from './support/common.js';

const Options = z.object({
  /** Which spend counts: agent + judges (default), the agent only, or the judges only. */
  include: z.enum(['all', 'agent', 'judge']).default('all'),
});

/** Mean USD per case run (agent and judge split in details), with a bootstrap 95% interval. */
export const costPerCase = defineBuiltinMetric({
  name: 'cost_per_case',
  description: 'Mean USD per case run, agent and judge split in details (bootstrap 95% interval)',
  direction: 'lower_is_better',
  options: Options,
  compute(results, opts) {
    const agent: number[] = [];
    const judge: number[] = [];
    const chosen: number[] = [];
    for (const r of results) {
      const a = r.output.cost ?? 0;
      const j = judgeTotals(r).cost;
      agent.push(a);
      judge.push(j);
      chosen.push(opts.include === 'agent' ? a : opts.include === 'judge' ? j : a + j);
    }
    const n = results.length;
    const mean = (xs: number[]) => (n === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / n);
    const value = mean(chosen);
    return {
      value,
      formatted_value: usd(value),
      interval: meanIntervalFor(results, chosen),
      sample_size: n,
      details: { include: opts.include, agent_per_case: mean(agent), judge_per_case: mean(judge) },
    };
  },
});
