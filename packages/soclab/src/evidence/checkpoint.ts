import type { EvidenceStore, NewEvent } from './store.js';

/**
 * Keeps an in-progress run's checkpoint current: what the run would append after its model turns (reads,
 * proposals, control-plane events so far), saved beside the chain whenever it grows (nudged on each proposal,
 * and polled, because a run waiting for a person gains its approval request without a callback). The chain's
 * order is unchanged: a run that finishes appends its events as always and drops the checkpoint; a run whose
 * process died gets the checkpoint appended before its `run.interrupted` event (evidence/interrupted.ts).
 *
 * @example
 *   const checkpoints = new RunCheckpointer(store, runId, () => tailSoFar());
 *   try { ...run...; await checkpoints.stop(); await store.appendMany(runId, all); } finally { await checkpoints.stop(); }
 */
export class RunCheckpointer {
  private saved = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | null;
  private stopped = false;

  constructor(
    private readonly store: EvidenceStore,
    private readonly runId: string,
    private readonly tail: () => NewEvent[],
    everyMs = 500,
  ) {
    this.timer = store.saveCheckpoint ? setInterval(() => this.nudge(), everyMs) : null;
    this.timer?.unref();
  }

  /** Save the tail if it grew since the last save (writes are serialized; a failed save is retried next time). */
  nudge(): void {
    const save = this.store.saveCheckpoint;
    if (this.stopped || !save) return;
    this.writing = this.writing.then(async () => {
      if (this.stopped) return;
      const events = this.tail();
      if (events.length === this.saved) return;
      try {
        await save.call(this.store, this.runId, events);
        this.saved = events.length;
      } catch {
        // Best effort: the chain itself is written at the end either way.
      }
    });
  }

  /** Stop saving and wait for a save in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.writing;
  }
}
