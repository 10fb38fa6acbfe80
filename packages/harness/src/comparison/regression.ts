import type { Experiment, MetricResult } from '../core/experiment.js';
import type { ExperimentHeader, ExperimentView } from '../core/view.js';
import { applyGate, type GateOptions } from './gate.js';
import type { ExperimentComparison, RegressionReport, RegressionViolation } from './models.js';

/** Rules per metric: `minimum`/`min` and `maximum`/`max` (the long name wins when both are set). */
export type ThresholdRules = Readonly<Record<string, Readonly<Record<string, number | string>>>>;

/**
 * Checks runs against rules (the seed's `RegressionDetector`).
 *
 * @example
 * const report = RegressionDetector.checkThresholds(experiment, { success_rate: { minimum: 0.85 } });
 */
export const RegressionDetector = {
  /**
   * Absolute bounds on one run's metrics. A metric absent from the run is skipped and not counted; the bound
   * itself passes (`actual < minimum` and `actual > maximum` are the violations).
   */
  checkThresholds(
    experiment: Experiment | ExperimentView | ExperimentHeader,
    thresholds: ThresholdRules,
  ): RegressionReport {
    const metrics: Record<string, MetricResult> =
      'header' in experiment ? experiment.header.metrics : (experiment as ExperimentHeader).metrics;
    const violations: RegressionViolation[] = [];
    let checked = 0;
    for (const [name, rules] of Object.entries(thresholds)) {
      const metric = metrics[name];
      if (!metric) continue;
      checked++;
      const actual = metric.value;
      const min = bound(rules, 'minimum', 'min', name);
      const max = bound(rules, 'maximum', 'max', name);
      if (min !== undefined && actual < min) {
        violations.push({
          metric_name: name,
          condition: 'minimum',
          threshold_value: min,
          actual_value: actual,
          p_value: null,
          message: `${name} was ${actual.toFixed(4)}, below required minimum of ${min.toFixed(4)}`,
        });
      }
      if (max !== undefined && actual > max) {
        violations.push({
          metric_name: name,
          condition: 'maximum',
          threshold_value: max,
          actual_value: actual,
          p_value: null,
          message: `${name} was ${actual.toFixed(4)}, exceeding maximum allowed ${max.toFixed(4)}`,
        });
      }
    }
    return { passed: violations.length === 0, violations, checked_metrics: checked };
  },

  /**
   * Re-decide a comparison's gate with other options (alpha, tolerance, strict, gated measures) without
   * re-reading the runs.
   */
  checkComparison(comparison: ExperimentComparison, options: GateOptions = {}): ExperimentComparison {
    const { measures, gate } = applyGate(comparison.paired.measures, options);
    return { ...comparison, paired: { ...comparison.paired, measures }, gate };
  },
};

function bound(rules: Readonly<Record<string, number | string>>, long: string, short: string, metric: string) {
  const raw = rules[long] ?? rules[short];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(n))
    throw new Error(
      `thresholds.${metric}.${rules[long] !== undefined ? long : short}: expected a number, got '${raw}'`,
    );
  return n;
}
