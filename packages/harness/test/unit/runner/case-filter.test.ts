import { describe, expect, it } from 'vitest';
import type { TestCase } from '../../../src/core/testcase.js';
import { bothFilters, caseFilter, countPlanned } from '../../../src/runner/case-filter.js';

function tc(id: string, tags: string[] = [], repeat: number | null = null): TestCase {
  return {
    id,
    name: id,
    description: null,
    input: id,
    evaluators: [],
    tags,
    metadata: {},
    timeout: null,
    repeat,
    vars: {},
  };
}

const cases = [tc('login-ok', ['smoke']), tc('login-bad'), tc('refund-1', ['billing']), tc('refund.2', ['billing'])];
const ids = (filter: ((t: TestCase) => boolean) | undefined) =>
  cases.filter((c) => !filter || filter(c)).map((c) => c.id);

describe('caseFilter (--filter)', () => {
  it('is no filter at all when no value is given', () => {
    expect(caseFilter(undefined)).toBeUndefined();
    expect(caseFilter([])).toBeUndefined();
  });

  it('matches nothing for an id no case has (the run then refuses to start)', () => {
    expect(ids(caseFilter(['login']))).toEqual([]);
    expect(ids(caseFilter(['tag:nope']))).toEqual([]);
  });

  it('selects by exact id, by * pattern over the whole id, and by tag; any value may match', () => {
    expect(ids(caseFilter(['login-bad']))).toEqual(['login-bad']);
    expect(ids(caseFilter(['login-*']))).toEqual(['login-ok', 'login-bad']);
    expect(ids(caseFilter(['*-1']))).toEqual(['refund-1']);
    expect(ids(caseFilter(['tag:billing']))).toEqual(['refund-1', 'refund.2']);
    expect(ids(caseFilter(['tag:smoke', 'refund-1']))).toEqual(['login-ok', 'refund-1']);
  });

  it('treats regex characters in a pattern literally', () => {
    // '.' is not "any character": refund.2 matches, a hypothetical refund-2 would not.
    expect(ids(caseFilter(['refund.*']))).toEqual(['refund.2']);
    expect(ids(caseFilter(['login-(ok|bad)']))).toEqual([]);
  });
});

describe('bothFilters', () => {
  it('ANDs two predicates and passes either through alone', () => {
    const byTag = caseFilter(['tag:billing']);
    const notTwo = (t: TestCase) => !t.id.endsWith('2');
    expect(ids(bothFilters(byTag, notTwo))).toEqual(['refund-1']);
    expect(ids(bothFilters(byTag, undefined))).toEqual(['refund-1', 'refund.2']);
    expect(ids(bothFilters(undefined, notTwo))).toEqual(['login-ok', 'login-bad', 'refund-1']);
    expect(bothFilters(undefined, undefined)).toBeUndefined();
  });
});

describe('countPlanned', () => {
  const suite = { cases: () => [tc('a'), tc('b', [], 3), tc('c')] };

  it('counts nothing when the filter selects nothing', async () => {
    expect(await countPlanned(suite, 2, () => false, new Set())).toBe(0);
  });

  it('counts case x repeat runs, honouring a case own repeat, minus keys already journaled', async () => {
    expect(await countPlanned(suite, 2, undefined, new Set())).toBe(2 + 3 + 2);
    expect(await countPlanned(suite, 2, caseFilter(['b']), new Set())).toBe(3);
    expect(await countPlanned(suite, 2, undefined, new Set(['a#0', 'b#2']))).toBe(1 + 2 + 2);
  });

  it("uses the suite's own count only when nothing is filtered or skipped", async () => {
    const counted = { ...suite, plannedRuns: (repeat: number) => 100 * repeat };
    expect(await countPlanned(counted, 2, undefined, new Set())).toBe(200);
    expect(await countPlanned(counted, 2, caseFilter(['a']), new Set())).toBe(2);
  });
});
