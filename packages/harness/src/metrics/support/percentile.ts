import { quantileInterval, quantileSorted, runsToBoundQuantile } from '../../stats/percentiles.js';
import { defineBuiltinMetric, latencyOf, seconds } from './common.js';

/** Register a latency percentile metric (pN_latency, with a latency_pN alias). */
export function defineLatencyPercentile(p: number) {
  const q = p / 100;
  return defineBuiltinMetric({
    name: `p${p}_latency`,
    aliases: [`latency_p${p}`],
    description: `${p}th percentile of agent latency in seconds (order-statistic 95% interval)`,
    direction: 'lower_is_better',
    compute(results) {
      const sorted = Float64Array.from(results.map(latencyOf)).sort();
      if (sorted.length === 0) return { value: 0, formatted_value: seconds(0), sample_size: 0, details: {} };
      const value = quantileSorted(sorted, q);
      const ci = quantileInterval(sorted, q);
      return {
        value,
        formatted_value: seconds(value),
        interval: ci ? { ...ci, level: 0.95, method: 'order statistics (binomial)' } : null,
        sample_size: sorted.length,
        details: {
          percentile: p,
          min: sorted[0],
          max: sorted[sorted.length - 1],
          method: 'linear interpolation (type 7)',
          // No interval: a gate `on: upper_bound` then fails as unbounded instead of passing on the sample's max.
          ...(ci
            ? {}
            : {
                interval_note: `too few runs to bound the ${p}th percentile at 95%: ${sorted.length} run(s), ${runsToBoundQuantile(q)} needed`,
              }),
        },
      };
    },
  });
}
