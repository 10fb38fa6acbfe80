import { canonicalJson, sha256Hex } from '../contracts/canonical.js';
import { GENESIS_HASH } from '../contracts/common.js';
import type { ChainVerification } from '../contracts/events.js';

/**
 * The per-run hash chain. Every event stores the canonical JSON (RFC 8785) of its payload, the SHA-256 of that
 * text, the previous event's hash (64 zeros for the first) and its own hash: SHA-256 of the canonical JSON of
 * {event_id, event_type, payload_hash, previous_hash, recorded_at, run_id, sequence}. Changing, deleting,
 * inserting or reordering events breaks the chain at a named sequence; truncating the tail does not (only a
 * published root hash reveals that), and neither does recomputing the whole chain.
 */

/** A stored row exactly as persisted (payload as canonical JSON text). */
export interface ChainRow {
  event_id: string;
  run_id: string;
  sequence: number;
  event_type: string;
  payload: string;
  payload_hash: string;
  previous_hash: string;
  event_hash: string;
  recorded_at: string;
}

export const payloadText = (payload: unknown): string => canonicalJson(payload);
export const payloadHash = (text: string): string => sha256Hex(text);

/**
 * Canonical header text. Equal to `canonicalJson(header)` (a unit test pins this) but built directly because
 * verification throughput matters: keys are already in RFC 8785 order and values are strings or an integer.
 */
export function headerText(row: Omit<ChainRow, 'payload' | 'event_hash'>): string {
  return (
    `{"event_id":${str(row.event_id)},"event_type":${str(row.event_type)},` +
    `"payload_hash":${str(row.payload_hash)},"previous_hash":${str(row.previous_hash)},` +
    `"recorded_at":${str(row.recorded_at)},"run_id":${str(row.run_id)},` +
    `"sequence":${Number.isSafeInteger(row.sequence) ? String(row.sequence) : JSON.stringify(row.sequence)}}`
  );
}

/** JSON string literal; ids, hashes and timestamps need no escaping, so skip JSON.stringify for them. */
const PLAIN = /^[A-Za-z0-9._:+-]*$/;
const str = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

export const eventHash = (row: Omit<ChainRow, 'payload' | 'event_hash'>): string => sha256Hex(headerText(row));

/** Build the next row of a chain. */
export function linkRow(input: {
  event_id: string;
  run_id: string;
  sequence: number;
  event_type: string;
  payload: unknown;
  previous_hash: string;
  recorded_at: string;
}): ChainRow {
  const text = payloadText(input.payload);
  const base = {
    event_id: input.event_id,
    run_id: input.run_id,
    sequence: input.sequence,
    event_type: input.event_type,
    payload_hash: payloadHash(text),
    previous_hash: input.previous_hash,
    recorded_at: input.recorded_at,
  };
  return { ...base, payload: text, event_hash: eventHash(base) };
}

/** Verify rows of one run (ordered by sequence). Reports the first divergent sequence and why. */
export function verifyRows(runId: string, rows: readonly ChainRow[]): ChainVerification {
  let previous = GENESIS_HASH;
  const fail = (sequence: number, reason: string): ChainVerification => ({
    run_id: runId,
    valid: false,
    length: rows.length,
    root_hash: null,
    first_invalid_sequence: sequence,
    reason,
  });
  for (const [i, row] of rows.entries()) {
    const expected = i + 1;
    if (row.sequence !== expected) return fail(expected, `expected sequence ${expected}, found ${row.sequence}`);
    if (row.run_id !== runId) return fail(expected, `foreign run id ${row.run_id}`);
    if (row.previous_hash !== previous) return fail(expected, 'broken link: previous_hash does not match event before');
    if (payloadHash(row.payload) !== row.payload_hash) return fail(expected, 'payload modified');
    if (eventHash(row) !== row.event_hash) return fail(expected, 'header modified');
    previous = row.event_hash;
  }
  return {
    run_id: runId,
    valid: true,
    length: rows.length,
    root_hash: rows.length > 0 ? previous : null,
    first_invalid_sequence: null,
    reason: null,
  };
}
