import { itemAt } from '@aeh/harness/item-at';
import { GENESIS_HASH, newUuid } from '../contracts/common.js';
import type { StoredAuditEvent } from '../contracts/events.js';
import { seededNow, seededUuid } from '../contracts/reproducible.js';
import { type ChainRow, linkRow } from './hash-chain.js';
import type { EvidenceStore, NewEvent } from './store.js';
import { rowToEvent } from './store.js';

/** A resumed run wrote something else than what its chain already holds at that place. */
export class ResumeMismatchError extends Error {
  override name = 'ResumeMismatchError';
  constructor(
    readonly runId: string,
    readonly sequence: number,
    detail: string,
  ) {
    super(`resume_mismatch: run ${runId} event ${sequence}: ${detail}`);
  }
}

/**
 * The evidence store as a resumed (re-executed, seeded) campaign sees it. A run that was cut off (waiting for a
 * person when the server stopped) runs again from its seeded scope and regenerates its events in the same order;
 * where its chain already holds events, each regenerated event is linked exactly as the store would link it (same
 * seeded event id and clock reading, same previous hash) and must hash to the stored one, so nothing is appended
 * twice and the chain stays one valid chain. Past the stored prefix, events are appended as usual. A different
 * event throws `ResumeMismatchError` and nothing of it is written.
 *
 * Only seeded campaigns can resume this way: an unseeded run mints fresh ids and times, which never match.
 *
 * @example
 *   const store = resumingStore(serverStore); // hand it to runCampaign(..., { evidence: store })
 */
export function resumingStore(inner: EvidenceStore): EvidenceStore {
  // Per chain: the rows stored before the resume, and how many of them the run has regenerated so far.
  const prefixes = new Map<string, Promise<{ rows: ChainRow[]; next: number }>>();
  const prefixOf = (runId: string) => {
    let p = prefixes.get(runId);
    if (!p) {
      p = inner.rows(runId).then((rows) => ({ rows, next: 0 }));
      prefixes.set(runId, p);
    }
    return p;
  };
  // One writer per chain at a time, so the prefix cursor and the store agree on what comes next.
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(runId: string, task: () => Promise<T>): Promise<T> => {
    const result = (turns.get(runId) ?? Promise.resolve()).then(task);
    turns.set(
      runId,
      result.catch(() => undefined),
    );
    return result;
  };

  const appendMany = (runId: string, events: readonly NewEvent[]): Promise<StoredAuditEvent[]> =>
    inTurn(runId, async () => {
      const prefix = await prefixOf(runId);
      const out: StoredAuditEvent[] = [];
      let i = 0;
      for (; i < events.length && prefix.next < prefix.rows.length; i += 1) {
        const e = itemAt(events, i);
        const stored = itemAt(prefix.rows, prefix.next);
        const previous = prefix.next === 0 ? GENESIS_HASH : itemAt(prefix.rows, prefix.next - 1).event_hash;
        // The same seeded readings the store takes for an append (evidence/store.ts), in the same order.
        const row = linkRow({
          event_id: e.event_id ?? seededUuid('evidence') ?? newUuid(),
          run_id: runId,
          sequence: prefix.next + 1,
          event_type: e.event_type,
          payload: e.payload,
          previous_hash: previous,
          recorded_at: (seededNow('evidence') ?? new Date()).toISOString(),
        });
        if (row.event_hash !== stored.event_hash) {
          const what =
            row.event_type !== stored.event_type
              ? `regenerated ${row.event_type}, the chain holds ${stored.event_type}`
              : `regenerated ${row.event_type} differs from the stored one`;
          throw new ResumeMismatchError(runId, stored.sequence, what);
        }
        prefix.next += 1;
        out.push(rowToEvent(stored));
      }
      if (i < events.length) out.push(...(await inner.appendMany(runId, events.slice(i))));
      return out;
    });

  return {
    get location() {
      return inner.location;
    },
    append: async (runId, event) => {
      const [stored] = await appendMany(runId, [event]);
      if (!stored) throw new Error(`appending to run ${runId} stored no event`);
      return stored;
    },
    appendMany,
    events: (runId) => inner.events(runId),
    rows: (runId) => inner.rows(runId),
    verify: (runId) => inner.verify(runId),
    runIds: () => inner.runIds(),
    rootHash: (runId) => inner.rootHash(runId),
    ...(inner.saveCheckpoint ? { saveCheckpoint: inner.saveCheckpoint.bind(inner) } : {}),
    ...(inner.clearCheckpoint ? { clearCheckpoint: inner.clearCheckpoint.bind(inner) } : {}),
    close: () => inner.close(),
  };
}
