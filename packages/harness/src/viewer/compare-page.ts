import type { CaseChange, CaseDelta, Page } from '../store/types.js';

/** One page of case changes: those of the asked kinds whose id or name contains `q` (case-insensitive). */
export function pageOfDeltas(
  deltas: readonly CaseDelta[],
  query: { change?: readonly CaseChange[]; q?: string; offset: number; limit: number },
): Page<CaseDelta> {
  const changes = query.change ? new Set<CaseChange>(query.change) : null;
  const needle = query.q?.toLowerCase();
  const filtered = deltas.filter(
    (d) =>
      (!changes || changes.has(d.change)) &&
      (!needle || d.test_id.toLowerCase().includes(needle) || d.test_name.toLowerCase().includes(needle)),
  );
  return {
    total: filtered.length,
    offset: query.offset,
    limit: query.limit,
    items: filtered.slice(query.offset, query.offset + query.limit),
  };
}
