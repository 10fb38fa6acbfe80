import { resultKey } from '../core/result.js';
import type { SuiteLike } from '../core/suite.js';
import type { TestCase } from '../core/testcase.js';

/** A case predicate: the case runs when it returns true. */
export type CasePredicate = (testCase: TestCase) => boolean;

/**
 * Build a case filter from `--filter` values: a case id, an id pattern with `*` wildcards, or `tag:<name>`.
 * A case runs when any value matches it; no values means no filter (undefined).
 */
export function caseFilter(filters: readonly string[] | undefined): CasePredicate | undefined {
  if (!filters || filters.length === 0) return undefined;
  const tests = filters.map((f): CasePredicate => {
    if (f.startsWith('tag:')) {
      const tag = f.slice(4);
      return (tc) => tc.tags.includes(tag);
    }
    if (f.includes('*')) {
      const re = new RegExp(`^${f.split('*').map(escapeRegExp).join('.*')}$`);
      return (tc) => re.test(tc.id);
    }
    return (tc) => tc.id === f;
  });
  return (tc) => tests.some((t) => t(tc));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Both predicates (either may be absent): the `--filter` values ANDed with a caller's own (e.g. a shard's). */
export function bothFilters(a: CasePredicate | undefined, b: CasePredicate | undefined): CasePredicate | undefined {
  return a && b ? (tc) => a(tc) && b(tc) : (a ?? b);
}

/**
 * How many case x repeat runs a filter and a skip set (keys already journaled) leave to do. Cases with their own
 * `repeat` count theirs; the suite's own count is used when nothing is filtered or skipped.
 */
export async function countPlanned(
  suite: Pick<SuiteLike, 'cases' | 'plannedRuns'>,
  repeat: number,
  filter: CasePredicate | undefined,
  skip: ReadonlySet<string>,
): Promise<number> {
  if (!filter && skip.size === 0 && suite.plannedRuns) return suite.plannedRuns(repeat);
  let n = 0;
  for await (const tc of suite.cases()) {
    if (filter && !filter(tc)) continue;
    const reps = tc.repeat ?? repeat;
    for (let r = 0; r < reps; r++) if (!skip.has(resultKey({ test_id: tc.id, repeat: r }))) n++;
  }
  return n;
}
