import { newUuid, nowUtc } from '../contracts/common.js';
import { linkRow } from './hash-chain.js';
import type { SqlEvidenceStore } from './store.js';

/**
 * Test-only tampering helpers: they edit the stored rows directly, as an attacker with database access would.
 * Not exported from the package index and never reachable from the CLI or API.
 */

/** Overwrite one field of the stored payload at `sequence` (hashes left as they were). */
export async function tamperPayload(
  store: SqlEvidenceStore,
  runId: string,
  sequence: number,
  field: string,
  value: unknown,
) {
  const row = await store.db
    .selectFrom('audit_events')
    .select('payload')
    .where('run_id', '=', runId)
    .where('sequence', '=', sequence)
    .executeTakeFirstOrThrow();
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
  payload[field] = value;
  await store.db
    .updateTable('audit_events')
    .set({ payload: JSON.stringify(payload) })
    .where('run_id', '=', runId)
    .where('sequence', '=', sequence)
    .execute();
}

export async function deleteEvent(store: SqlEvidenceStore, runId: string, sequence: number) {
  await store.db.deleteFrom('audit_events').where('run_id', '=', runId).where('sequence', '=', sequence).execute();
}

/** Exchange the sequence numbers of two events (reordering). */
export async function swapEvents(store: SqlEvidenceStore, runId: string, a: number, b: number) {
  await store.db.transaction().execute(async (trx) => {
    const set = (from: number, to: number) =>
      trx
        .updateTable('audit_events')
        .set({ sequence: to })
        .where('run_id', '=', runId)
        .where('sequence', '=', from)
        .execute();
    await set(a, -1);
    await set(b, a);
    await set(-1, b);
  });
}

/**
 * Insert a forged event at `sequence`, shifting later events up by one. The forger links it correctly to the
 * event before it and computes valid hashes, so the first divergence is the next event (its link now points at
 * the wrong predecessor).
 */
export async function insertForgedEvent(
  store: SqlEvidenceStore,
  runId: string,
  sequence: number,
  payload: Record<string, unknown>,
) {
  const rows = await store.rows(runId);
  const previous = rows.find((r) => r.sequence === sequence - 1)?.event_hash ?? '0'.repeat(64);
  await store.db.transaction().execute(async (trx) => {
    for (const r of [...rows].reverse()) {
      if (r.sequence < sequence) continue;
      await trx
        .updateTable('audit_events')
        .set({ sequence: r.sequence + 1 })
        .where('run_id', '=', runId)
        .where('sequence', '=', r.sequence)
        .execute();
    }
    const forged = linkRow({
      event_id: newUuid(),
      run_id: runId,
      sequence,
      event_type: 'forged.event',
      payload,
      previous_hash: previous,
      recorded_at: nowUtc(),
    });
    await trx.insertInto('audit_events').values(forged).execute();
  });
}
