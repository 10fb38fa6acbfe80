import { z } from 'zod';
import { defineBuiltinMetric, includedSpend, judgeTotals, meanIntervalFor, SpendInclude } from './support/common.js';

const Options = z.object({ include: SpendInclude });

/** Total tokens (input + output) spent, agent and judge split; details carry the per-case mean and interval. */
export const tokens = defineBuiltinMetric({
  name: 'tokens',
  description:
    'Total tokens (input + output), agent and judge split in details (per-case mean with bootstrap interval)',
  direction: 'lower_is_better',
  options: Options,
  compute(results, opts) {
    let agentIn = 0;
    let agentOut = 0;
    let judgeIn = 0;
    let judgeOut = 0;
    let reported = 0;
    let estimated = 0;
    const perCase: number[] = [];
    for (const r of results) {
      const u = r.output.usage;
      const a = u ? u.input_tokens + u.output_tokens : 0;
      if (u) {
        reported++;
        if (u.estimated) estimated++;
        agentIn += u.input_tokens;
        agentOut += u.output_tokens;
      }
      const j = judgeTotals(r);
      judgeIn += j.input_tokens;
      judgeOut += j.output_tokens;
      const jt = j.input_tokens + j.output_tokens;
      perCase.push(includedSpend(opts.include, a, jt));
    }
    const agent = agentIn + agentOut;
    const judge = judgeIn + judgeOut;
    const value = includedSpend(opts.include, agent, judge);
    return {
      value,
      formatted_value: `${value.toLocaleString('en-US')} tokens`,
      sample_size: results.length,
      details: {
        include: opts.include,
        agent_input_tokens: agentIn,
        agent_output_tokens: agentOut,
        judge_input_tokens: judgeIn,
        judge_output_tokens: judgeOut,
        per_case: results.length === 0 ? 0 : value / results.length,
        per_case_interval: meanIntervalFor(results, perCase),
        reported_runs: reported,
        estimated_runs: estimated,
      },
    };
  },
});
