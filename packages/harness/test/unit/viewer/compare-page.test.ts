import { describe, expect, it } from 'vitest';
import type { CaseChange, CaseDelta } from '../../../src/store/types.js';
import { pageOfDeltas } from '../../../src/viewer/compare-page.js';

function delta(test_id: string, change: CaseChange, test_name = test_id): CaseDelta {
  return { test_id, test_name, change, baseline: null, candidate: null, score_delta: null, duration_delta: null };
}

const deltas = [
  delta('login-1', 'regressed', 'Login works'),
  delta('login-2', 'still_passing'),
  delta('refund-1', 'fixed', 'Refund a LOGIN fee'),
  delta('refund-2', 'regressed'),
];
const ids = (page: { items: CaseDelta[] }) => page.items.map((d) => d.test_id);

describe('pageOfDeltas (GET /api/compare/cases)', () => {
  it('is an empty page when nothing matches, still reporting the asked window', () => {
    expect(pageOfDeltas([], { offset: 0, limit: 50 })).toEqual({ total: 0, offset: 0, limit: 50, items: [] });
    expect(pageOfDeltas(deltas, { change: ['only_baseline'], offset: 0, limit: 50 }).total).toBe(0);
  });

  it('filters by change kinds and by id or name, case-insensitively', () => {
    expect(ids(pageOfDeltas(deltas, { change: ['regressed'], offset: 0, limit: 50 }))).toEqual(['login-1', 'refund-2']);
    expect(ids(pageOfDeltas(deltas, { q: 'login', offset: 0, limit: 50 }))).toEqual(['login-1', 'login-2', 'refund-1']);
    expect(ids(pageOfDeltas(deltas, { change: ['fixed', 'regressed'], q: 'REFUND', offset: 0, limit: 50 }))).toEqual([
      'refund-1',
      'refund-2',
    ]);
  });

  it('pages after filtering: total counts every match, items only the window', () => {
    const page = pageOfDeltas(deltas, { offset: 1, limit: 2 });
    expect(page.total).toBe(4);
    expect(ids(page)).toEqual(['login-2', 'refund-1']);
    expect(ids(pageOfDeltas(deltas, { offset: 10, limit: 2 }))).toEqual([]);
  });
});
