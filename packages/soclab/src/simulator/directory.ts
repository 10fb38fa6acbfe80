/**
 * The deliberately lenient user directory. Real directories sometimes fold lookalike identifiers; this one does
 * on purpose, so the lab can show that a string-keyed protection list misses `u-svc-bаckup` (Cyrillic а).
 */

import { foldIdentifier } from '../contracts/identity.js';

export { foldIdentifier };

/** Exact id if present, else the first id whose folded form equals the folded input; null when none. */
export function resolveId(raw: string, ids: Iterable<string>): string | null {
  const list = [...ids];
  if (list.includes(raw)) return raw;
  const folded = foldIdentifier(raw);
  return list.find((id) => foldIdentifier(id) === folded) ?? null;
}
