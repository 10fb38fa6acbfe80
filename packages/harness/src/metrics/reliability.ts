import { agentFailed, defineBuiltinMetric, percent, rateInterval } from './support/common.js';

/** Share of agent runs that completed without an agent error (Wilson 95% interval). 100% when empty. */
export const reliability = defineBuiltinMetric({
  name: 'reliability',
  description: 'Share of agent runs without an agent error (Wilson 95% interval)',
  direction: 'higher_is_better',
  compute(results) {
    const n = results.length;
    const errors = results.filter(agentFailed).length;
    const value = n === 0 ? 1 : (n - errors) / n;
    return {
      value,
      formatted_value: percent(value),
      interval: rateInterval(n - errors, n),
      sample_size: n,
      details: { total: n, error_free: n - errors, errors },
    };
  },
});
