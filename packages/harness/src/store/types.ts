import type { CaseStatus, TestCaseResult } from '../core/result.js';
import type { ExperimentHeader } from '../core/view.js';

/** A metric as the index stores it. */
export interface StoredMetric {
  name: string;
  value: number;
  formatted_value: string;
  direction: string;
  lower: number | null;
  upper: number | null;
  level: number | null;
  sample_size: number | null;
  error: string | null;
}

/** One row of `harness runs list` and the viewer's run list. */
export interface RunSummary {
  id: string;
  name: string;
  suite_name: string;
  suite_version: string;
  agent_adapter: string;
  agent_label: string | null;
  agent_version: string | null;
  state: string;
  started_at: string;
  finished_at: string | null;
  location: string | null;
  total: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /** passed / (total - skipped); null when nothing ran. */
  pass_rate: number | null;
  /**
   * For a run still marked running: seconds since its journal last changed (null otherwise, or when the
   * folder is not on this machine). A run killed without its end record stays "running" in the files;
   * a long idle time is how to tell.
   */
  idle_seconds: number | null;
  mean_score: number | null;
  total_cost: number | null;
  total_duration: number;
  thresholds_passed: boolean | null;
  git_commit: string | null;
  metrics: Record<string, StoredMetric>;
}

export interface EvaluatorStat {
  evaluator: string;
  cases: number;
  passed: number;
  errors: number;
  mean_score: number;
}

export interface TagStat {
  tag: string;
  cases: number;
  passed: number;
}

/** `harness runs show` and the viewer's run page header. */
export interface RunDetail extends RunSummary {
  header: ExperimentHeader;
  evaluators: EvaluatorStat[];
  tags: TagStat[];
}

export interface CaseEvaluationSummary {
  evaluator: string;
  score: number;
  passed: boolean;
  error: boolean;
}

/** One row of the run page's case grid. */
export interface CaseSummary {
  test_id: string;
  repeat: number;
  test_name: string;
  status: CaseStatus;
  score: number;
  duration: number;
  attempts: number;
  cost: number | null;
  error: string | null;
  tags: string[];
  evaluations: CaseEvaluationSummary[];
  /** First characters of the output text. */
  output_preview: string;
}

export type CaseSort = 'seq' | 'score' | '-score' | 'duration' | '-duration' | 'test_id';

export interface CaseFilter {
  status?: readonly CaseStatus[] | undefined;
  tag?: string | undefined;
  /** Only cases this evaluator scored. */
  evaluator?: string | undefined;
  /** With `evaluator`: only cases where it passed (true) or did not (false). */
  evaluatorPassed?: boolean | undefined;
  /** Case-insensitive substring of the test id or name. */
  q?: string | undefined;
  sort?: CaseSort | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

export interface Page<T> {
  total: number;
  offset: number;
  limit: number;
  items: T[];
}

export interface StoredCase {
  experiment_id: string;
  result: TestCaseResult;
}

export interface SuiteSummary {
  suite_name: string;
  runs: number;
  last_started_at: string;
  metrics: string[];
}

export interface HistoryPoint {
  id: string;
  name: string;
  started_at: string;
  state: string;
  agent_label: string | null;
  agent_version: string | null;
  git_commit: string | null;
  value: number;
  formatted_value: string;
  direction: string;
  lower: number | null;
  upper: number | null;
  sample_size: number | null;
}

/** A case's outcome in one run (repeats folded). */
export type RunOutcome = 'pass' | 'fail' | 'mixed';

export interface FlakyCase {
  test_id: string;
  test_name: string;
  /** Runs this case appears in (within the window). */
  runs: number;
  executions: number;
  passes: number;
  pass_rate: number;
  /** Outcome changes between consecutive runs. */
  flips: number;
  /** flips / (runs - 1). */
  flip_rate: number;
  /** Runs whose repeats disagreed with each other. */
  mixed_runs: number;
  /** Oldest first. */
  history: { id: string; started_at: string; outcome: RunOutcome; passes: number; executions: number }[];
  quarantined: boolean;
}

export interface FlakyOptions {
  /** Only the most recent N runs of the suite (default 20). */
  window?: number;
  /** A case needs at least this many runs to be judged (default 3). */
  minRuns?: number;
  /** Only runs of this agent label or version. */
  agent?: string | undefined;
  /** Case ids quarantined in the suite; they are reported and marked, never hidden. */
  quarantine?: readonly string[];
}

export interface FlakyReport {
  suite_name: string;
  runs_considered: number;
  cases_considered: number;
  flaky: FlakyCase[];
}

export type CaseChange = 'regressed' | 'fixed' | 'still_failing' | 'still_passing' | 'only_baseline' | 'only_candidate';

/** Per-case comparison of two runs (repeats folded into a pass rate and a mean score). */
export interface CaseDelta {
  test_id: string;
  test_name: string;
  change: CaseChange;
  baseline: { pass_rate: number; score: number; duration: number; executions: number } | null;
  candidate: { pass_rate: number; score: number; duration: number; executions: number } | null;
  score_delta: number | null;
  duration_delta: number | null;
}

export interface CaseDeltaCounts {
  regressed: number;
  fixed: number;
  still_failing: number;
  still_passing: number;
  only_baseline: number;
  only_candidate: number;
}
