import type { RunStore } from './run-store.js';

/** The quarantine list recorded in the suite's most recent run (`metadata.quarantine`). */
export async function quarantineOfLatest(store: RunStore, suite: string): Promise<string[]> {
  const latest = (await store.listRuns({ suite, limit: 1 })).items[0];
  if (!latest) return [];
  const run = await store.getRun(latest.id);
  const q = run.header.metadata?.quarantine;
  return Array.isArray(q) ? q.filter((x): x is string => typeof x === 'string') : [];
}
