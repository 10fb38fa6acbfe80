import type { MetricResult, ThresholdOutcome, ThresholdRule, ThresholdViolation } from '../core/experiment.js';

type RuleInput = Partial<ThresholdRule> & Pick<ThresholdRule, 'minimum' | 'maximum'>;

/**
 * Check metric results against threshold rules. `on` picks the figure that must clear the bar: the point
 * estimate, or a bound of the metric's confidence interval. A rule whose metric is missing, errored, or has
 * no interval when one is required, or a sample size of 0, fails (a gate never passes on absent evidence).
 */
export function checkThresholds(
  metrics: Readonly<Record<string, MetricResult>>,
  rules: Readonly<Record<string, RuleInput>>,
): ThresholdOutcome {
  const violations: ThresholdViolation[] = [];
  let checked = 0;
  for (const [name, rule] of Object.entries(rules)) {
    const on = rule.on ?? 'value';
    const bounds: ['minimum' | 'maximum', number][] = [];
    if (rule.minimum !== undefined) bounds.push(['minimum', rule.minimum]);
    if (rule.maximum !== undefined) bounds.push(['maximum', rule.maximum]);
    const [firstBound] = bounds;
    if (firstBound === undefined) continue;
    checked++;
    const metric = metrics[name];
    const missing = (why: string) =>
      violations.push({
        metric_name: name,
        condition: 'missing',
        threshold_value: firstBound[1],
        actual_value: null,
        on,
        message: `${name}: ${why}`,
      });
    if (!metric) {
      missing("metric was not computed (add it to the suite's metrics)");
      continue;
    }
    if (metric.error) {
      missing(`metric failed: ${metric.error}`);
      continue;
    }
    // An empty run reports error_rate 0, latency 0 and reliability 100% (docs/metrics.md); those are figures of
    // nothing, and a gate on them passed a run in which no case ran.
    if (metric.sample_size === 0) {
      missing('no case runs to measure (sample size 0)');
      continue;
    }
    let actual: number;
    if (on === 'value') actual = metric.value;
    else if (!metric.interval) {
      missing(`rule is on the ${on.replace('_', ' ')} but the metric has no confidence interval`);
      continue;
    } else actual = on === 'lower_bound' ? metric.interval.lower : metric.interval.upper;
    const figure = on === 'value' ? name : `${name} ${on.replace('_', ' ')}`;
    for (const [condition, limit] of bounds) {
      const bad = condition === 'minimum' ? actual < limit : actual > limit;
      if (!bad) continue;
      violations.push({
        metric_name: name,
        condition,
        threshold_value: limit,
        actual_value: actual,
        on,
        message: `${figure} = ${fmt(actual)} is ${condition === 'minimum' ? 'below the minimum' : 'above the maximum'} ${fmt(limit)}`,
      });
    }
  }
  return { passed: violations.length === 0, checked, violations };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(4)));
}
