import { z } from 'zod';
import { TestCaseResult } from './result.js';

const JsonObject = z.record(z.string(), z.unknown());

export const MetricDirection = z.enum(['higher_is_better', 'lower_is_better', 'neutral']);
export type MetricDirection = z.infer<typeof MetricDirection>;

/** A confidence interval around a metric's point estimate. */
export const MetricInterval = z.object({
  lower: z.number(),
  upper: z.number(),
  /** Confidence level, e.g. 0.95. */
  level: z.number().gt(0).lt(1).default(0.95),
  method: z.string().optional(),
});
export type MetricInterval = z.infer<typeof MetricInterval>;

/**
 * How a metric's numbers are shown to people: `rate` a share (values as %, changes in percentage points),
 * `level` an ordinal 1..n (values as L1..Ln, changes as L1→L4, never a percent change), `duration` seconds,
 * `usd` money, `number` anything else. Absent: guessed from the formatted value.
 */
export const MetricDisplay = z.enum(['number', 'rate', 'level', 'duration', 'usd']);
export type MetricDisplay = z.infer<typeof MetricDisplay>;

export const MetricResult = z.object({
  name: z.string().min(1),
  value: z.number(),
  formatted_value: z.string(),
  direction: MetricDirection.default('higher_is_better'),
  display: MetricDisplay.optional(),
  description: z.string().nullable().default(null),
  interval: MetricInterval.nullable().default(null),
  /** Number of observations the value is computed from. */
  sample_size: z.number().int().min(0).optional(),
  error: z.string().optional(),
  details: JsonObject.default({}),
});
export type MetricResult = z.infer<typeof MetricResult>;
export type MetricResultInput = z.input<typeof MetricResult>;

export const ExperimentState = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type ExperimentState = z.infer<typeof ExperimentState>;

export const ThresholdRule = z.strictObject({
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  /** Which figure must clear the bar: the point estimate (default) or an interval bound. */
  on: z.enum(['value', 'lower_bound', 'upper_bound']).default('value'),
});
export type ThresholdRule = z.infer<typeof ThresholdRule>;

export const ThresholdViolation = z.object({
  metric_name: z.string(),
  condition: z.enum(['minimum', 'maximum', 'missing']),
  threshold_value: z.number(),
  actual_value: z.number().nullable(),
  on: z.enum(['value', 'lower_bound', 'upper_bound']).default('value'),
  message: z.string(),
});
export type ThresholdViolation = z.infer<typeof ThresholdViolation>;

export const ThresholdOutcome = z.object({
  passed: z.boolean(),
  checked: z.number().int().min(0),
  violations: z.array(ThresholdViolation).default([]),
});
export type ThresholdOutcome = z.infer<typeof ThresholdOutcome>;

export const SuiteInfo = z.object({
  name: z.string(),
  version: z.string().default('1.0'),
  /** SHA-256 of the suite's content (file plus external case files). */
  content_hash: z.string().default(''),
  path: z.string().optional(),
  total_cases: z.number().int().min(0).default(0),
  /** The metric the suite declares as the one figure to read first (the viewer and `harness compare` lead with it). */
  headline: z.string().optional(),
});
export type SuiteInfo = z.infer<typeof SuiteInfo>;

export const AgentDescriptor = z.object({
  adapter: z.string(),
  /** Adapter options with secrets redacted. */
  options: JsonObject.default({}),
  version: z.string().optional(),
  label: z.string().optional(),
});
export type AgentDescriptor = z.infer<typeof AgentDescriptor>;

export const RunEnvironment = z.object({
  tool_version: z.string(),
  node_version: z.string(),
  platform: z.string(),
  git_commit: z.string().nullable().default(null),
});
export type RunEnvironment = z.infer<typeof RunEnvironment>;

/** Version of the experiment JSON format. */
export const EXPERIMENT_SCHEMA_VERSION = '1';

/** A complete (or partial, when interrupted) run of a suite against an agent. */
export const Experiment = z.object({
  schema_version: z.string().default(EXPERIMENT_SCHEMA_VERSION),
  id: z.string().min(1),
  name: z.string().min(1),
  state: ExperimentState.default('pending'),
  suite: SuiteInfo,
  agent: AgentDescriptor,
  started_at: z.string(),
  finished_at: z.string().nullable().default(null),
  results: z.array(TestCaseResult).default([]),
  metrics: z.record(z.string(), MetricResult).default({}),
  thresholds: ThresholdOutcome.nullable().default(null),
  environment: RunEnvironment,
  metadata: JsonObject.default({}),
});
export type Experiment = z.infer<typeof Experiment>;
export type ExperimentInput = z.input<typeof Experiment>;

export function passedCount(results: readonly TestCaseResult[]): number {
  let n = 0;
  for (const r of results) if (r.status === 'passed') n++;
  return n;
}
