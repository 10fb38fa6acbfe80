import type { CaseStatus, TestCaseResult } from '../core/result.js';
import { resultKey } from '../core/result.js';
import type { ExperimentHeader, ExperimentView } from '../reporters/base.js';

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
}

/** Read a run's results once, keeping only what comparison needs. */
export async function collectRun(view: ExperimentView): Promise<RunTable> {
  const table: RunTable = {
    header: view.header,
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
  };
  for await (const r of view.results()) addRow(table, r);
  return table;
}

function addRow(t: RunTable, r: TestCaseResult): void {
  const key = resultKey(r);
  let row = t.index.get(key);
  if (row === undefined) {
    row = t.keys.length;
    t.index.set(key, row);
    t.keys.push(key);
    t.testIds.push(r.test_id);
    t.repeats.push(r.repeat);
    t.names.push('');
    t.status.push(r.status);
    t.score.push(0);
    t.latency.push(Number.NaN);
    t.cost.push(Number.NaN);
    t.tokens.push(Number.NaN);
    for (const column of t.evaluators.values()) column.push(Number.NaN);
  }
  t.names[row] = r.test_name || r.test_id;
  t.status[row] = r.status;
  t.score[row] = r.score;
  const o = r.output;
  t.latency[row] = num(o.latency ?? r.duration);
  t.cost[row] = num(o.cost);
  t.tokens[row] = o.usage ? num(o.usage.input_tokens + o.usage.output_tokens) : Number.NaN;
  for (const column of t.evaluators.values()) column[row] = Number.NaN;
  if (r.evaluations.length > 0) {
    const sums = new Map<string, { sum: number; count: number }>();
    for (const e of r.evaluations) {
      const s = sums.get(e.evaluator) ?? { sum: 0, count: 0 };
      s.sum += e.score;
      s.count++;
      sums.set(e.evaluator, s);
    }
    for (const [name, s] of sums) {
      let column = t.evaluators.get(name);
      if (!column) {
        column = new Array<number>(t.keys.length).fill(Number.NaN);
        t.evaluators.set(name, column);
      }
      column[row] = s.sum / s.count;
    }
  }
}

function num(x: number | null | undefined): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : Number.NaN;
}
