import { createHash, hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON: sorted keys, no whitespace, ECMAScript number formatting. The one convention
 * used for every hash in the lab (content hashes, proposal hashes, grant signatures, the evidence chain), so
 * issuer and verifier always agree.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be represented as canonical JSON');
  return text;
}

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  // One-shot `crypto.hash` (Node >= 20.12) is about twice as fast as createHash for short inputs.
  return typeof hash === 'function'
    ? hash('sha256', text, 'hex')
    : createHash('sha256').update(text, 'utf8').digest('hex');
}

/** SHA-256 of the canonical JSON of `value`. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** JSON with object keys sorted recursively (readable form used in model messages; stable across runs). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
