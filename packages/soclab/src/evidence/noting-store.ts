import type { EvidenceStore, SqlEvidenceStore } from './store.js';

/**
 * The shared store as one campaign sees it: `beforeWrite(runId)` is awaited before every append (so the owner learns
 * of each chain, e.g. to close it should the campaign be cancelled or its worker die, before its first event lands),
 * every read is the store's own, and `close` is a no-op because the store outlives the campaign and its owner
 * closes it.
 */
export function notingStore(store: SqlEvidenceStore, beforeWrite: (runId: string) => Promise<void>): EvidenceStore {
  return {
    get location() {
      return store.location;
    },
    append: async (runId, event) => {
      await beforeWrite(runId);
      return store.append(runId, event);
    },
    appendMany: async (runId, events) => {
      await beforeWrite(runId);
      return store.appendMany(runId, events);
    },
    events: (runId) => store.events(runId),
    rows: (runId) => store.rows(runId),
    verify: (runId) => store.verify(runId),
    runIds: () => store.runIds(),
    rootHash: (runId) => store.rootHash(runId),
    saveCheckpoint: (runId, events) => store.saveCheckpoint(runId, events),
    clearCheckpoint: (runId) => store.clearCheckpoint(runId),
    close: async () => undefined,
  };
}
