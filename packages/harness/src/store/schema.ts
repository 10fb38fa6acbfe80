import type { ColumnType, Generated } from 'kysely';
import type { StoredMetric } from './types.js';

/**
 * Tables of the run index. The index is derived data: every row can be rebuilt from the run folders
 * (`harness index rebuild`), so columns hold what list/show/history/flaky/view query on, plus the full
 * record as JSON for drill-down when the run folder is on another machine (team PostgreSQL store).
 *
 * Column types stay portable across SQLite and PostgreSQL (deps.md gotcha 19): text, integer, bigint,
 * double precision; JSON is text in SQLite and jsonb in PostgreSQL (see `json.ts`). Booleans are 0/1.
 */

/** JSON as stored: a string in SQLite, already parsed by the pg driver for jsonb. */
export type JsonColumn = unknown;

export interface ExperimentsTable {
  id: string;
  name: string;
  suite_name: string;
  suite_version: string;
  suite_hash: string;
  agent_adapter: string;
  agent_label: string | null;
  agent_version: string | null;
  state: string;
  started_at: string;
  finished_at: string | null;
  /** Absolute path of the run folder (or the experiment file) this row was indexed from. */
  location: string | null;
  total: Generated<number>;
  passed: Generated<number>;
  failed: Generated<number>;
  errored: Generated<number>;
  skipped: Generated<number>;
  mean_score: number | null;
  total_cost: number | null;
  total_duration: Generated<number>;
  /** 1 passed, 0 failed, null when no thresholds were checked. */
  thresholds_passed: number | null;
  git_commit: string | null;
  tool_version: string | null;
  /** The experiment header (everything but results) as JSON. */
  header: JsonColumn;
  /** Bytes of the journal already indexed; lets a live run be indexed incrementally. */
  journal_offset: ColumnType<number, number | undefined, number>;
  indexed_at: string;
}

export interface CaseResultsTable {
  experiment_id: string;
  test_id: string;
  repeat: number;
  /** Order of first appearance in the run, for a stable default sort. */
  seq: number;
  test_name: string;
  status: string;
  score: number;
  duration: number;
  attempts: number;
  cost: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** The full TestCaseResult as JSON. */
  result: JsonColumn;
}

export interface CaseEvaluationsTable {
  experiment_id: string;
  test_id: string;
  repeat: number;
  /** Position in the case's evaluation list (an evaluator may appear twice with different options). */
  idx: number;
  evaluator: string;
  score: number;
  passed: number;
  error: number;
}

export interface CaseTagsTable {
  experiment_id: string;
  test_id: string;
  repeat: number;
  tag: string;
  /** 1 when the tagged case passed (copied from case_results so tag stats need no join). */
  passed: number;
}

/** One stored metric of a run: the metric as the index reports it (declared once, in types.ts), keyed by run. */
export interface MetricValuesTable extends StoredMetric {
  experiment_id: string;
}

/** The Kysely database interface (hand-written, as Kysely expects). */
export interface StoreDatabase {
  experiments: ExperimentsTable;
  case_results: CaseResultsTable;
  case_evaluations: CaseEvaluationsTable;
  case_tags: CaseTagsTable;
  metric_values: MetricValuesTable;
}
