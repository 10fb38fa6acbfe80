import type { ExperimentState } from './experiment.js';
import type { TestCaseResult } from './result.js';
import type { SuiteLike } from './suite.js';
import type { TestCase } from './testcase.js';
import type { ExperimentHeader } from './view.js';

// The contract between `runExperiment` and whatever executes a run's case x repeat keys: the local runner, or a
// replacement such as the job-queue coordinator. Types only, so an executor never has to import the runner.

/** Where one result lives in a journal (its last occurrence; a later duplicate replaces an earlier one). */
export interface ResultLocation {
  key: string;
  test_id: string;
  repeat: number;
  /** Suite position of the case when the writer recorded it; first-seen order otherwise. */
  index: number;
  offset: number;
  length: number;
}

/** Progress after each finished case x repeat. */
export interface RunProgress {
  done: number;
  /** Planned case x repeat runs for this invocation (excludes keys resumed from the journal). */
  total: number;
  passed: number;
  failed: number;
  errors: number;
}

/** What running a suite's keys produced (the local runner's and every executor's answer). */
export interface RunOutcome {
  state: Extract<ExperimentState, 'completed' | 'cancelled'>;
  /** Slimmed results of this invocation, in case then repeat order. */
  results: TestCaseResult[];
  /** Suite positions parallel to `results`. */
  indexes: number[];
  /** Where each result was journaled (when a journal was given), in result order. */
  locations: ResultLocation[];
  progress: RunProgress;
  retriesUsed: number;
}

/** The run's journal as an executor uses it: each result recorded once, at its suite position. */
export interface ResultRecorder {
  result(result: TestCaseResult, index?: number): ResultLocation;
}

/** The configured runner as an executor sees it (`AgentRunner` is the implementation). */
export interface ExecutionRunner {
  readonly concurrency: number;
  readonly timeout: number | null;
  readonly repeat: number;
  readonly metricNames: string[];
  /** Run one case x repeat locally; null when `signal` aborted it. */
  evaluateCase(testCase: TestCase, repeat?: number, signal?: AbortSignal): Promise<TestCaseResult | null>;
}

/** Filter, skip set (keys already journaled), journal, planned total, signal and progress callback. */
export interface ExecutionHooks {
  signal?: AbortSignal;
  /** Keys (`test_id#repeat`) already done: skipped (resume). */
  skip: ReadonlySet<string>;
  /** Only cases for which this returns true run. */
  filter?: (testCase: TestCase) => boolean;
  journal: ResultRecorder;
  /** Planned runs, for progress only. */
  total: number;
  onResult?: (result: TestCaseResult, progress: RunProgress) => void;
}

/** What a replacement for the local runner receives (`RunExperimentOptions.execute`). */
export interface RunExecution {
  /** The configured runner: repeat count, timeout and metrics (its agent may be a placeholder). */
  runner: ExecutionRunner;
  suite: SuiteLike;
  /** The run's header (its `id` names the run; on resume, the original header). */
  header: ExperimentHeader;
  runDir: string;
  /** Whether this invocation continues an existing run folder. */
  resumed: boolean;
  hooks: ExecutionHooks;
  /** How results are slimmed for metrics. */
  slim: (result: TestCaseResult) => TestCaseResult;
}

/** Executes a run's case x repeat keys; must journal each result once and return them like `AgentRunner.run`. */
export type RunExecutor = (execution: RunExecution) => Promise<RunOutcome>;
