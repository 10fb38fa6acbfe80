import { defineBuiltinMetric, judgeFailed, scoreIntervalFor } from './support/common.js';

/**
 * Mean case score in [0, 1], with a percentile bootstrap 95% interval (clustered by case with repeats) never narrower
 * than the Wilson interval of the same mean (support/common.ts, scoreInterval). A run whose
 * LLM judge gave no usable verdict has no known score: it is left out of the mean and counted in `judge_errors`
 * (averaging it in as 0 would blame the agent for the judge).
 */
export const accuracy = defineBuiltinMetric({
  name: 'accuracy',
  description:
    'Mean case score in [0, 1] (bootstrap 95% interval, at least the Wilson width); judge errors are counted, not scored 0',
  direction: 'higher_is_better',
  compute(results) {
    const judged = results.filter((r) => !judgeFailed(r));
    const judgeErrors = results.length - judged.length;
    const scores = judged.map((r) => r.score);
    const value = scores.length === 0 ? 0 : scores.reduce((a, b) => a + b, 0) / scores.length;
    return {
      value,
      formatted_value:
        judgeErrors > 0 ? `${value.toFixed(2)} (${judgeErrors} judge error(s) excluded)` : value.toFixed(2),
      interval: scoreIntervalFor(judged, scores),
      sample_size: scores.length,
      details: { sample_size: scores.length, judge_errors: judgeErrors },
    };
  },
});
