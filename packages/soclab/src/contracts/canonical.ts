import { createHash, hash } from 'node:crypto';
import { sortedKeysJson } from '@aeh/harness/hash';

/**
 * RFC 8785 (JCS) canonical JSON: sorted keys, no whitespace, ECMAScript number formatting. The one convention
 * used for every hash in the lab (content hashes, proposal hashes, grant signatures, the evidence chain), so
 * issuer and verifier always agree.
 */
export function canonicalJson(value: unknown): string {
  const text = jcs(value, []);
  if (text === undefined) throw new TypeError('value cannot be represented as canonical JSON');
  return text;
}

// Node 20 has String.prototype.isWellFormed (ES2024); the lib setting stops at ES2023.
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * One JCS value. Written for speed on the evidence chain (every event's payload): strings are checked for lone
 * surrogates natively, objects are built by concatenation, and the open containers are a short array (depth) rather
 * than a Set. Same output and same errors as the `canonicalize` package it replaces (a property test compares them),
 * including its treatment of undefined, functions and symbols and of objects with toJSON.
 */
function jcs(value: unknown, open: object[]): string | undefined {
  if (typeof value === 'string') {
    if (!wellFormed(value)) throw new Error('Lone surrogate is not allowed');
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new Error('NaN is not allowed');
    if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
    return JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (open.includes(value)) throw new Error('Circular reference detected');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  open.push(value);
  let text: string;
  if (typeof toJSON === 'function') {
    text = jcs(toJSON.call(value), open) as string;
  } else if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // A hole, or an element with no JSON form (a function), leaves an empty slot (map and join, as before).
      const part = !(i in value) ? '' : jcs(item === undefined || typeof item === 'symbol' ? null : item, open);
      text += i === 0 ? (part ?? '') : `,${part ?? ''}`;
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    text = '{';
    let first = true;
    // Default sort: UTF-16 code unit order, which is what RFC 8785 prescribes for keys.
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined || typeof item === 'symbol') continue;
      if (!wellFormed(key)) throw new Error('Lone surrogate is not allowed');
      text += `${first ? '' : ','}${JSON.stringify(key)}:${jcs(item, open)}`;
      first = false;
    }
    text += '}';
  }
  open.pop();
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
