import { itemAt } from '../core/item-at.js';
import type { CaseStatus, TestCaseResult } from '../core/result.js';
import type { ExperimentHeader, ExperimentView } from '../core/view.js';
import { type JournalEntry, readJournalLines } from '../runner/journal.js';

/**
 * The per-case figures a comparison needs, in flat arrays (one row per case x repeat), so comparing two
 * 100,000-case runs keeps a few megabytes instead of two full result sets. A repeated key replaces the
 * earlier row (last wins, as in the journal).
 */
export interface RunTable {
  header: ExperimentHeader;
  index: Map<string, number>;
  keys: string[];
  testIds: string[];
  repeats: number[];
  names: string[];
  status: CaseStatus[];
  score: number[];
  /** Seconds; NaN when unknown. */
  latency: number[];
  /** USD; NaN when unknown. */
  cost: number[];
  /** Input + output tokens; NaN when unknown. */
  tokens: number[];
  /** Mean score per evaluator name; NaN where the evaluator did not run. */
  evaluators: Map<string, number[]>;
  /** Suite position of each row's case (the journal's `index`, else first-seen order). */
  order: number[];
  /** Position of each test id when first seen. */
  firstSeen: Map<string, number>;
}

function emptyTable(header: ExperimentHeader): RunTable {
  return {
    header,
    index: new Map(),
    keys: [],
    testIds: [],
    repeats: [],
    names: [],
    status: [],
    score: [],
    latency: [],
    cost: [],
    tokens: [],
    evaluators: new Map(),
    order: [],
    firstSeen: new Map(),
  };
}

/** Rows in suite order (case position, then repeat), the order flips are listed in. */
export function rowsInOrder(t: RunTable): number[] {
  const rows = t.keys.map((_, i) => i);
  return rows.sort((a, b) => itemAt(t.order, a) - itemAt(t.order, b) || itemAt(t.repeats, a) - itemAt(t.repeats, b));
}

const STATUSES = new Set<string>(['passed', 'failed', 'error', 'skipped']);

/**
 * Read a run journal straight into a table: one JSON parse per line and no schema validation of whole
 * results (only the fields comparison uses are checked), so two 100,000-case journals compare in seconds.
 * Tolerates a truncated last line and later duplicates (last wins), like the journal reader.
 */
export function collectJournal(path: string): RunTable {
  let header: ExperimentHeader | null = null;
  let end: Extract<JournalEntry, { type: 'end' }> | null = null;
  let table: RunTable | null = null;
  const pending: Array<{ r: TestCaseResult; index: number | undefined }> = [];
  for (const line of readJournalLines(path)) {
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line.text) as JournalEntry;
    } catch {
      continue;
    }
    if (!entry || typeof entry !== 'object') continue;
    if (entry.type === 'header') {
      if (header === null) {
        header = entry.experiment;
        table = emptyTable(header);
        for (const p of pending) addRow(table, p.r, p.index);
      }
    } else if (entry.type === 'end') {
      end = entry;
    } else if (entry.type === 'result') {
      const r = entry.result as TestCaseResult | undefined;
      if (!r || typeof r.test_id !== 'string' || !STATUSES.has(r.status) || !r.output) continue;
      if (table) addRow(table, r, entry.index);
      else pending.push({ r, index: entry.index });
    }
  }
  if (!header || !table) throw new Error(`${path}: journal has no header line`);
  table.header = {
    ...header,
    ...(end
      ? {
          state: end.state,
          finished_at: end.finished_at,
          metrics: end.metrics ?? {},
          thresholds: end.thresholds ?? null,
        }
      : { state: header.state === 'running' ? 'cancelled' : header.state }),
  };
  return table;
}

/** Read a run's results once, keeping only what comparison needs. */
export async function collectRun(view: ExperimentView): Promise<RunTable> {
  const table = emptyTable(view.header);
  for await (const r of view.results()) addRow(table, r);
  return table;
}

function addRow(t: RunTable, r: TestCaseResult, suiteIndex?: number): void {
  const repeat = typeof r.repeat === 'number' ? r.repeat : 0;
  const key = `${r.test_id}#${repeat}`;
  let first = t.firstSeen.get(r.test_id);
  if (first === undefined) {
    first = t.firstSeen.size;
    t.firstSeen.set(r.test_id, first);
  }
  let row = t.index.get(key);
  if (row === undefined) {
    row = t.keys.length;
    t.index.set(key, row);
    t.keys.push(key);
    t.testIds.push(r.test_id);
    t.repeats.push(repeat);
    t.order.push(0);
    t.names.push('');
    t.status.push(r.status);
    t.score.push(0);
    t.latency.push(Number.NaN);
    t.cost.push(Number.NaN);
    t.tokens.push(Number.NaN);
    for (const column of t.evaluators.values()) column.push(Number.NaN);
  } else {
    // A later duplicate replaces the row: forget the earlier evaluator scores.
    for (const column of t.evaluators.values()) column[row] = Number.NaN;
  }
  t.order[row] = typeof suiteIndex === 'number' ? suiteIndex : first;
  t.names[row] = r.test_name || r.test_id;
  t.status[row] = r.status;
  t.score[row] = num(r.score) || 0;
  const o = r.output;
  t.latency[row] = num(o.latency ?? r.duration);
  t.cost[row] = num(o.cost);
  t.tokens[row] = o.usage ? num(o.usage.input_tokens + o.usage.output_tokens) : Number.NaN;
  const evaluations = r.evaluations;
  if (!Array.isArray(evaluations)) return;
  for (const [i, e] of evaluations.entries()) {
    if (typeof e.evaluator !== 'string' || typeof e.score !== 'number') continue;
    let column = t.evaluators.get(e.evaluator);
    if (!column) {
      column = new Array<number>(t.keys.length).fill(Number.NaN);
      t.evaluators.set(e.evaluator, column);
    }
    // The same evaluator twice on one case (e.g. two `contains` checks): their mean.
    let count = 0;
    let sum = 0;
    for (const [j, other] of evaluations.entries()) {
      if (other.evaluator === e.evaluator && typeof other.score === 'number') {
        if (j < i) break;
        sum += other.score;
        count++;
      }
    }
    if (count > 0) column[row] = sum / count;
  }
}

function num(x: number | null | undefined): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : Number.NaN;
}
