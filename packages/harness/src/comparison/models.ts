import { z } from 'zod';
import { MetricDirection, MetricDisplay } from '../core/experiment.js';

const JsonObject = z.record(z.string(), z.unknown());

/** Change of one run-level metric between two experiments (the seed's `MetricDelta`). */
export const MetricDelta = z.object({
  name: z.string(),
  v1_value: z.number(),
  v2_value: z.number(),
  v1_formatted: z.string(),
  v2_formatted: z.string(),
  /** v2 - v1. */
  delta: z.number(),
  /** delta / v1 * 100; null when v1 is 0 (no meaningful percentage). */
  pct_delta: z.number().nullable().default(null),
  direction: MetricDirection.default('higher_is_better'),
  /** How the values and the change read (`rate`: points, `level`: L1→L4); `pct_delta` is null for both. */
  display: MetricDisplay.optional(),
  is_improvement: z.boolean().default(false),
  is_regression: z.boolean().default(false),
  /** `measure` and `p_value` when the metric is backed by a paired measure. */
  details: JsonObject.default({}),
});
export type MetricDelta = z.infer<typeof MetricDelta>;

export const MeasureVerdict = z.enum([
  /** Worse by more than the tolerance and significant (or, in strict mode, just worse by more than it). */
  'regression',
  /** Worse by more than the tolerance but not significant. */
  'worse_not_significant',
  /** Worse, but by no more than the tolerance. */
  'within_tolerance',
  'unchanged',
  'better_not_significant',
  'improvement',
  /** No pairs to compare. */
  'no_data',
]);
export type MeasureVerdict = z.infer<typeof MeasureVerdict>;

/** A per-case quantity compared on the shared cases, with its paired interval and test. */
export const PairedMeasure = z.object({
  /** `pass_rate`, `mean_score`, `mean_latency`, `mean_cost`, `mean_tokens` or `score:<evaluator>`. */
  name: z.string(),
  description: z.string(),
  direction: MetricDirection,
  /** Number of paired units (case x repeat pairs, or cases when repeats are clustered). */
  n: z.number().int().min(0),
  baseline_value: z.number(),
  candidate_value: z.number(),
  delta: z.number(),
  pct_delta: z.number().nullable(),
  /** Paired bootstrap percentile interval of the delta. */
  interval: z.object({
    lower: z.number(),
    upper: z.number(),
    level: z.number(),
    method: z.string(),
    resamples: z.number().int(),
    seed: z.number().int(),
  }),
  /** Which test produced `p_value`. */
  test: z.string(),
  p_value: z.number().nullable(),
  /** Holm-adjusted across the gated measures; for ungated measures the raw p-value. */
  p_adjusted: z.number().nullable(),
  /** How much worse the candidate is, in the measure's units (negative when it is better). */
  worse_by: z.number(),
  /** Absolute tolerance applied to `worse_by`. */
  tolerance: z.number(),
  gated: z.boolean(),
  verdict: MeasureVerdict,
  details: JsonObject.default({}),
});
export type PairedMeasure = z.infer<typeof PairedMeasure>;

export const FlipKind = z.enum(['newly_failing', 'newly_passing', 'still_failing']);
export type FlipKind = z.infer<typeof FlipKind>;

/** A shared case x repeat whose pass/fail outcome is worth a look. */
export const CaseFlip = z.object({
  kind: FlipKind,
  /** `test_id#repeat`. */
  key: z.string(),
  test_id: z.string(),
  repeat: z.number().int(),
  test_name: z.string(),
  baseline_status: z.string(),
  candidate_status: z.string(),
  baseline_score: z.number(),
  candidate_score: z.number(),
  /** Listed in the suite's quarantine: reported, never gating. */
  quarantined: z.boolean(),
});
export type CaseFlip = z.infer<typeof CaseFlip>;

/** One failed gate rule (the seed's `RegressionViolation`, plus the p-value behind the decision). */
export const RegressionViolation = z.object({
  metric_name: z.string(),
  /** `minimum`/`maximum` for absolute thresholds; `max_worsening` for a baseline-versus-candidate gate. */
  condition: z.enum(['minimum', 'maximum', 'max_worsening']),
  threshold_value: z.number(),
  actual_value: z.number(),
  p_value: z.number().nullable().default(null),
  message: z.string(),
});
export type RegressionViolation = z.infer<typeof RegressionViolation>;

/** Outcome of `RegressionDetector.checkThresholds` (the seed's `RegressionReport`). */
export const RegressionReport = z.object({
  passed: z.boolean(),
  violations: z.array(RegressionViolation).default([]),
  checked_metrics: z.number().int().min(0).default(0),
});
export type RegressionReport = z.infer<typeof RegressionReport>;

export const GateMode = z.enum(['significance', 'strict']);
export type GateMode = z.infer<typeof GateMode>;

/** A gated measure that dropped past the practical bound without a significant test: the gate cannot vouch. */
export const GateInconclusive = z.object({
  measure: z.string(),
  worse_by: z.number(),
  /** The practical bound (`--max-drop`) it exceeded. */
  bound: z.number(),
  n: z.number().int().min(0),
  p_value: z.number().nullable(),
  /** Estimated paired cases needed to detect a drop this size with 80% power; null when no estimate. */
  units_needed: z.number().int().nullable(),
  message: z.string(),
});
export type GateInconclusive = z.infer<typeof GateInconclusive>;

export const GateStatus = z.enum(['passed', 'failed', 'inconclusive']);
export type GateStatus = z.infer<typeof GateStatus>;

export const GateOutcome = z.object({
  mode: GateMode,
  alpha: z.number(),
  /** True only for status `passed`. */
  passed: z.boolean(),
  /** `inconclusive`: no significant regression, but a gated measure dropped past the practical bound. */
  status: GateStatus,
  /** Measures the gate looked at. */
  gated: z.array(z.string()),
  violations: z.array(RegressionViolation),
  inconclusive: z.array(GateInconclusive).default([]),
});
export type GateOutcome = z.infer<typeof GateOutcome>;

/** Everything `harness compare` knows about two runs (the seed's `ExperimentComparison`, extended). */
export const ExperimentComparison = z.object({
  baseline_id: z.string(),
  candidate_id: z.string(),
  baseline_name: z.string(),
  candidate_name: z.string(),
  /** The metric the candidate's suite declares as its headline, when both runs have it. */
  headline: z.string().nullable().default(null),
  /** Run-level metric deltas, sorted by name; metrics missing on either side are skipped. */
  deltas: z.record(z.string(), MetricDelta),
  /** Shared case x repeat keys (skipped results excluded). */
  common_tests: z.number().int().min(0),
  newly_passed_tests: z.array(z.string()),
  newly_failed_tests: z.array(z.string()),
  still_failing_tests: z.array(z.string()),
  only_in_baseline: z.number().int().min(0),
  only_in_candidate: z.number().int().min(0),
  /** Flips in baseline order: newly failing, newly passing, still failing. */
  flips: z.array(CaseFlip),
  /** Quarantined test ids (from the candidate's `metadata.quarantine` and options). */
  quarantine: z.array(z.string()),
  paired: z.object({
    /** `case_repeat` pairs each case x repeat; `case` averages repeats per case first (clustered). */
    unit: z.enum(['case_repeat', 'case']),
    /** Paired units used by the statistics (quarantined cases excluded). */
    pairs: z.number().int().min(0),
    excluded_quarantined: z.number().int().min(0),
    level: z.number(),
    seed: z.number().int(),
    measures: z.array(PairedMeasure),
  }),
  gate: GateOutcome,
});
export type ExperimentComparison = z.infer<typeof ExperimentComparison>;
