import { agentFailed, defineBuiltinMetric, percent, rateInterval } from './support/common.js';

/** Share of agent runs that ended in an agent error (timeouts, crashes, HTTP failures), Wilson 95% interval. */
export const errorRate = defineBuiltinMetric({
  name: 'error_rate',
  description: 'Share of agent runs that ended in an agent error (Wilson 95% interval)',
  direction: 'lower_is_better',
  compute(results) {
    const n = results.length;
    const errors = results.filter(agentFailed);
    const value = n === 0 ? 0 : errors.length / n;
    const kinds: Record<string, number> = {};
    for (const r of errors) {
      const kind = /timed? ?out|timeout/i.test(r.output.error ?? '') ? 'timeout' : 'error';
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    return {
      value,
      formatted_value: percent(value),
      interval: rateInterval(errors.length, n),
      sample_size: n,
      details: { total: n, errors: errors.length, kinds },
    };
  },
});
