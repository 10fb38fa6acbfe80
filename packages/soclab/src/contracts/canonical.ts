import { createHash, hash } from 'node:crypto';
import { sortedKeysJson } from '@aeh/harness/hash';
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

/**
 * JSON with object keys sorted recursively: the readable, stable form of tool results and alerts in model messages
 * (the harness's sorted-keys serialiser; not the JCS form above, which is only for hashing).
 */
export const sortedJson = (value: unknown): string => sortedKeysJson(value);
