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
  readonly #known = new Set<string>();

  constructor(readonly options: LiveIndexerOptions) {}

  async start(): Promise<void> {
    for (const r of (await this.options.store.listRuns({ limit: 1000 })).items) this.#known.add(r.id);
    this.#schedule();
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

  /** One poll: index new run folders and grown journals, and report what changed. */
  async poll(): Promise<void> {
    const { store } = this.options;
    const sync = await store.syncIndex(this.options.runsDir);
    const outcomes = [...sync.indexed];
    for (const path of this.options.extra ?? []) {
      try {
        const r = await store.indexRun(path);
        if (!r.unchanged) outcomes.push(r);
      } catch {
        // A run given on the command line that disappeared stays as last indexed.
      }
    }
    for (const r of outcomes) {
      const created = !this.#known.has(r.id);
      this.#known.add(r.id);
      this.options.onEvent({ type: 'run', id: r.id, state: r.state, added: r.results, created });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#inflight;
  }
}
