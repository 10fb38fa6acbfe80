import { sql } from 'kysely';
import type { SqlEvidenceStore } from './store.js';

/** The last event of a run that ended normally. */
export const RUN_FINISHED = 'run.finished';
/** The last event of a run whose process stopped before it finished (written when the server starts again). */
export const RUN_INTERRUPTED = 'run.interrupted';

/** How a run's chain ends: `finished`, `interrupted`, or `open` (still being written, or never closed). */
export type RunEnding = 'finished' | 'interrupted' | 'open';

/** The ending of a chain from its event types in order. */
export function runEnding(eventTypes: readonly string[]): RunEnding {
  const last = eventTypes[eventTypes.length - 1];
  if (last === RUN_FINISHED) return 'finished';
  if (last === RUN_INTERRUPTED) return 'interrupted';
  return 'open';
}

/** Runs whose chain has neither a `run.finished` nor a `run.interrupted` event. */
export async function openRuns(store: SqlEvidenceStore): Promise<string[]> {
  const rows = await store.db
    .selectFrom('audit_events')
    .select('run_id')
    .groupBy('run_id')
    .having(sql<number>`sum(case when event_type in (${RUN_FINISHED}, ${RUN_INTERRUPTED}) then 1 else 0 end)`, '=', 0)
    .orderBy('run_id')
    .execute();
  return rows.map((r) => r.run_id);
}

/**
 * Close every open chain with a `run.interrupted` event, keeping what was written. Called when `soclab serve`
 * starts (and after it stops its campaigns): a run whose process died keeps its events, and its chain says it was
 * interrupted instead of looking like a short, complete and valid run. Only the server that owns the database
 * may call this: a run still being written by another process would be closed under it. `only` limits it to
 * some runs (those of one cancelled campaign).
 */
export async function sealInterruptedRuns(
  store: SqlEvidenceStore,
  reason: string,
  only?: ReadonlySet<string>,
  /** More facts for a run's terminal event (what it was waiting for when it stopped). */
  details?: (runId: string) => Readonly<Record<string, unknown>> | undefined,
): Promise<{ run_id: string; events_kept: number }[]> {
  const sealed: { run_id: string; events_kept: number }[] = [];
  for (const runId of await openRuns(store)) {
    if (only && !only.has(runId)) continue;
    const rows = await store.rows(runId);
    const last = rows[rows.length - 1];
    // What the run had done beyond its model turns (reads, proposals, control-plane events), as last saved.
    const recovered = (await store.checkpointOf(runId)) ?? [];
    await store.appendMany(runId, [
      ...recovered,
      {
        event_type: RUN_INTERRUPTED,
        payload: {
          reason,
          events_kept: rows.length,
          events_recovered: recovered.length,
          last_event_type: last?.event_type ?? null,
          last_recorded_at: last?.recorded_at ?? null,
          ...(details?.(runId) ?? {}),
        },
      },
    ]);
    await store.clearCheckpoint(runId);
    sealed.push({ run_id: runId, events_kept: rows.length });
  }
  // Every chain is closed now; checkpoints left by runs that finished just before a crash are stale.
  if (!only) await store.db.deleteFrom('run_checkpoints').execute();
  return sealed;
}
