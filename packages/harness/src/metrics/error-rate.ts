import { agentFailed, defineBuiltinMetric, judgeFailed, percent, rateInterval } from './support/common.js';

/**
 * Share of agent runs that ended in an agent error (timeouts, crashes, HTTP failures), Wilson 95% interval. Runs
 * whose LLM judge failed are not agent errors; they are reported beside it (`judge_errors`, with their own rate).
 */
export const errorRate = defineBuiltinMetric({
  name: 'error_rate',
  description: 'Share of agent runs that ended in an agent error (Wilson 95% interval)',
  direction: 'lower_is_better',
  compute(results) {
    const n = results.length;
    const errors = results.filter(agentFailed);
    const value = n === 0 ? 0 : errors.length / n;
    const judgeErrors = results.filter(judgeFailed).length;
    const kinds: Record<string, number> = {};
    for (const r of errors) {
      const kind = /timed? ?out|timeout/i.test(r.output.error ?? '') ? 'timeout' : 'error';
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    return {
      value,
      formatted_value: judgeErrors > 0 ? `${percent(value)} (+${judgeErrors} judge error(s))` : percent(value),
      interval: rateInterval(errors.length, n),
      sample_size: n,
      details: {
        total: n,
        errors: errors.length,
        kinds,
        judge_errors: judgeErrors,
        judge_error_rate: n === 0 ? 0 : judgeErrors / n,
        judge_error_interval: rateInterval(judgeErrors, n),
      },
    };
  },
});
