import { defineBuiltinMetric, meanIntervalFor } from './support/common.js';

/** Mean case score in [0, 1], with a percentile bootstrap 95% interval (clustered by case with repeats). */
export const accuracy = defineBuiltinMetric({
  name: 'accuracy',
  description: 'Mean case score in [0, 1] (bootstrap 95% interval)',
  direction: 'higher_is_better',
  compute(results) {
    const scores = results.map((r) => r.score);
    const value = scores.length === 0 ? 0 : scores.reduce((a, b) => a + b, 0) / scores.length;
    return {
      value,
      formatted_value: value.toFixed(2),
      interval: meanIntervalFor(results, scores),
      sample_size: scores.length,
      details: { sample_size: scores.length },
    };
  },
});
