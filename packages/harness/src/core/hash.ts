import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted, so equal content always serialises (and hashes) the same way: the key of harness
 * case ids, judge-cache entries and merge checks. Not RFC 8785: soclab's `canonicalJson` (contracts/canonical.ts)
 * is the JCS form its evidence chain and grants are hashed with; this one keeps the ids already on disk stable.
 */
export function sortedKeysJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => sortedKeysJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedKeysJson(v)}`).join(',')}}`;
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
