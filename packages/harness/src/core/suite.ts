import type { MetricDisplay, ThresholdRule } from './experiment.js';
import type { Redactor } from './redactor.js';
import type { EvaluatorConfig, TestCase } from './testcase.js';

/** A metric named in a suite: a registry name, or a name with options. */
export type MetricSpec = string | { name: string; options?: Record<string, unknown> };

/** What runExperiment needs from a suite; `loadSuite` returns one, and code can build one directly. */
export interface SuiteLike {
  name: string;
  version: string;
  description?: string | null;
  path?: string;
  /** Folder that relative paths (module agents, plugins, case files) resolve against. */
  baseDir: string;
  contentHash: string;
  totalCases: number;
  agent: { adapter: string; options: Record<string, unknown>; label?: string; version?: string };
  evaluators: EvaluatorConfig[];
  metrics: MetricSpec[];
  thresholds: Record<string, ThresholdRule>;
  /** The metric to read first (one of the suite's metrics); shown first by the viewer and `harness compare`. */
  headline?: string;
  /** How metrics are shown, by name (overrides what the metric itself declares). */
  display?: Record<string, MetricDisplay>;
  quarantine?: string[];
  vars?: Record<string, unknown>;
  /** The run's secret scrubber (a `SecretScrubber`); every file the run writes is scrubbed with it. */
  redactor?: Redactor;
  /** Streams the cases (may be called more than once). */
  cases(): AsyncIterable<TestCase> | Iterable<TestCase>;
  /** Planned runs for a default repeat count (cases with their own `repeat` count theirs). */
  plannedRuns?(repeat: number): number;
}
