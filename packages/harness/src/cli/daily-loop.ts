import type { TestCaseResult } from '../core/result.js';
import type { TestCase } from '../core/testcase.js';
import type { ExperimentView } from '../core/view.js';
import { CliError, EXIT } from './common.js';

/**
 * The pytest-style daily loop of `harness run`: `-k EXPR` case selection, `--last-failed`, and the closing
 * summary that groups failures by reason.
 */

type Predicate = (tc: Pick<TestCase, 'id' | 'name' | 'tags'>) => boolean;

const TOKEN = /\s*(\(|\)|[^\s()]+)/y;

/**
 * Parse a `-k` expression: words match a case when they are a case-insensitive substring of its id, name or one
 * of its tags; `and`, `or`, `not` and parentheses combine them (`not` binds tightest, then `and`, then `or`).
 */
export function parseKeywordExpression(expr: string): Predicate {
  const tokens: { text: string; at: number }[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(expr); m; m = TOKEN.exec(expr)) {
    tokens.push({ text: m[1] as string, at: m.index + m[0].length - (m[1] as string).length + 1 });
    if (TOKEN.lastIndex >= expr.length) break;
  }
  if (tokens.length === 0) throw new CliError('-k needs an expression, e.g. -k "refund and not slow"', EXIT.usage);
  let i = 0;
  const fail = (what: string): never => {
    const at = tokens[i]?.at ?? expr.length + 1;
    throw new CliError(`-k "${expr}": ${what} at column ${at}`, EXIT.usage);
  };
  const peek = () => tokens[i]?.text.toLowerCase();
  const orExpr = (): Predicate => {
    let left = andExpr();
    while (peek() === 'or') {
      i++;
      const l = left;
      const r = andExpr();
      left = (tc) => l(tc) || r(tc);
    }
    return left;
  };
  const andExpr = (): Predicate => {
    let left = notExpr();
    while (peek() === 'and') {
      i++;
      const l = left;
      const r = notExpr();
      left = (tc) => l(tc) && r(tc);
    }
    return left;
  };
  const notExpr = (): Predicate => {
    if (peek() === 'not') {
      i++;
      const inner = notExpr();
      return (tc) => !inner(tc);
    }
    return atom();
  };
  const atom = (): Predicate => {
    const t = tokens[i];
    if (!t) return fail('expected a word or (');
    if (t.text === '(') {
      i++;
      const inner = orExpr();
      if (tokens[i]?.text !== ')') fail('expected )');
      i++;
      return inner;
    }
    if (t.text === ')' || ['and', 'or', 'not'].includes(t.text.toLowerCase())) return fail(`unexpected '${t.text}'`);
    i++;
    const word = t.text.toLowerCase();
    return (tc) =>
      tc.id.toLowerCase().includes(word) ||
      tc.name.toLowerCase().includes(word) ||
      tc.tags.some((tag) => tag.toLowerCase().includes(word));
  };
  const predicate = orExpr();
  if (i < tokens.length) fail(`unexpected '${tokens[i]?.text}'`);
  return predicate;
}

/** A failed or errored result as a reason: the error with numbers and quoted text folded, or the failing evaluators and their explanation pattern. */
export function failureReason(r: TestCaseResult): string {
  const fold = (t: string) =>
    t
      // Quoted text (not apostrophes inside words) and numbers vary per case; the pattern around them does not.
      // (single quotes greedily: a quoted output may hold apostrophes, as in 'I'm sorry').
      .replace(/"[^"]*"|`[^`]*`|(?<![\w])'.*'(?![\w])/g, '…')
      .replace(/\d+(\.\d+)?/g, 'N')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100);
  if (r.status === 'error' || r.output.error) return `error: ${fold(r.output.error ?? 'unknown error')}`;
  const failing = r.evaluations.filter((e) => !e.passed);
  if (failing.length === 0) return 'score below the pass mark';
  return failing.map((e) => `${e.evaluator}${e.explanation ? `: ${fold(e.explanation)}` : ''}`).join('; ');
}

/** Failures and errors grouped by reason, biggest group first, with up to three case ids each. */
export async function failureGroups(
  view: ExperimentView,
): Promise<{ reason: string; count: number; examples: string[] }[]> {
  const groups = new Map<string, { count: number; examples: string[] }>();
  for await (const r of view.results()) {
    if (r.status !== 'failed' && r.status !== 'error') continue;
    const key = failureReason(r);
    const g = groups.get(key) ?? { count: 0, examples: [] };
    g.count++;
    if (g.examples.length < 3) g.examples.push(r.repeat > 0 ? `${r.test_id}#${r.repeat}` : r.test_id);
    groups.set(key, g);
  }
  return [...groups.entries()]
    .map(([reason, g]) => ({ reason, ...g }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}

/** The closing summary lines (empty when nothing failed). */
export async function failureSummary(view: ExperimentView, max = 10): Promise<string[]> {
  const groups = await failureGroups(view);
  if (groups.length === 0) return [];
  const total = groups.reduce((n, g) => n + g.count, 0);
  const lines = [`Failures by reason (${total} case run${total === 1 ? '' : 's'}):`];
  for (const g of groups.slice(0, max)) {
    lines.push(`  ${String(g.count).padStart(4)}  ${g.reason}  (${g.examples.join(', ')}${g.count > 3 ? ', …' : ''})`);
  }
  if (groups.length > max) lines.push(`  … and ${groups.length - max} more reasons`);
  return lines;
}

/**
 * The case ids that failed or errored in the latest run of this suite under `runsDir` (by start time), with
 * that run's folder; null when the suite has no earlier run there.
 */
export async function lastFailedCases(
  suiteName: string,
  runsDir: string,
): Promise<{ runDir: string; ids: Set<string> } | null> {
  const { listRunFolders } = await import('../store/indexer.js');
  const { loadRun } = await import('../runner/run-folder.js');
  let latest: { runDir: string; view: ExperimentView; started: string } | null = null;
  for (const folder of listRunFolders(runsDir)) {
    let view: ExperimentView;
    try {
      view = await loadRun(folder);
    } catch {
      continue;
    }
    if (view.header.suite.name !== suiteName) continue;
    if (!latest || view.header.started_at > latest.started)
      latest = { runDir: folder, view, started: view.header.started_at };
  }
  if (!latest) return null;
  const ids = new Set<string>();
  for await (const r of latest.view.results()) if (r.status === 'failed' || r.status === 'error') ids.add(r.test_id);
  return { runDir: latest.runDir, ids };
}
