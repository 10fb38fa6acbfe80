import { defineBuiltinMetric, latencyOf, meanIntervalFor, seconds } from './support/common.js';

/** Mean agent latency in seconds (reported latency, else wall clock), bootstrap 95% interval. */
export const latency = defineBuiltinMetric({
  name: 'latency',
  description: 'Mean agent latency in seconds (bootstrap 95% interval)',
  direction: 'lower_is_better',
  compute(results) {
    const values = results.map(latencyOf);
    if (values.length === 0) return { value: 0, formatted_value: seconds(0), sample_size: 0, details: {} };
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let total = 0;
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
      total += v;
    }
    const avg = total / values.length;
    return {
      value: avg,
      formatted_value: seconds(avg),
      interval: meanIntervalFor(results, values),
      sample_size: values.length,
      details: { min, max, avg },
    };
  },
});
