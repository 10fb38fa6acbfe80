import type { RunVersion } from '../store/queries.js';
import type { RunStore } from '../store/run-store.js';

/** What changed in the index since the last poll. */
export interface LiveEvent {
  type: 'run';
  id: string;
  state: string;
  /** Results added by this update. */
  added: number;
  /** True when the run was not in the index before. */
  created: boolean;
}

export interface LiveIndexerOptions {
  store: RunStore;
  /** Folder of run folders to watch for new and growing runs. */
  runsDir: string;
  /** Run folders or files outside runsDir to keep up to date. */
  extra?: readonly string[];
  intervalMs?: number;
  onEvent(event: LiveEvent): void;
  onError?(err: unknown): void;
}

/**
 * Keeps the index current while runs are in progress by polling the journals (append-only files, so a
 * stat and a read of the new tail is all a poll costs). Polls never overlap; `stop()` waits for the
 * one in flight.
 */
export class LiveIndexer {
  #timer: NodeJS.Timeout | null = null;
  #inflight: Promise<void> | null = null;
  #stopped = false;
  /** Last seen version of each run: `indexed_at|state|total`. */
  readonly #seen = new Map<string, { sig: string; total: number }>();
  #watermark = '';

  constructor(readonly options: LiveIndexerOptions) {}

  async start(): Promise<void> {
    for (const v of this.#remember(await this.options.store.changedSince(''))) {
      this.#seen.set(v.id, { sig: `${v.indexed_at}|${v.state}|${v.total}`, total: v.total });
    }
    this.#schedule();
  }

  /** Versions that differ from what was last seen; advances the watermark. */
  #remember(versions: readonly RunVersion[]): RunVersion[] {
    const changed: RunVersion[] = [];
    for (const v of versions) {
      const sig = `${v.indexed_at}|${v.state}|${v.total}`;
      if (this.#seen.get(v.id)?.sig !== sig) changed.push(v);
      if (v.indexed_at > this.#watermark) this.#watermark = v.indexed_at;
    }
    return changed;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#inflight = this.poll()
        .catch((err) => this.options.onError?.(err))
        .finally(() => {
          this.#inflight = null;
          this.#schedule();
        });
    }, this.options.intervalMs ?? 1000);
    this.#timer.unref();
  }

  /**
   * One poll: index new run folders and grown journals, then report every run whose index entry changed,
   * whoever wrote it (another process, such as `harness run` indexing its own finished run, counts too).
   */
  async poll(): Promise<void> {
    const { store } = this.options;
    await store.syncIndex(this.options.runsDir);
    for (const path of this.options.extra ?? []) {
      try {
        await store.indexRun(path);
      } catch {
        // A run given on the command line that disappeared stays as last indexed.
      }
    }
    // Look back a little: another writer's clock and commit order can lag ours.
    const since = this.#watermark ? new Date(Date.parse(this.#watermark) - 5000).toISOString() : '';
    for (const v of this.#remember(await store.changedSince(since))) {
      const before = this.#seen.get(v.id);
      this.#seen.set(v.id, { sig: `${v.indexed_at}|${v.state}|${v.total}`, total: v.total });
      this.options.onEvent({
        type: 'run',
        id: v.id,
        state: v.state,
        added: Math.max(0, v.total - (before?.total ?? 0)),
        created: before === undefined,
      });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#inflight;
  }
}
