import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CampaignProgress, CampaignRun } from '../campaign/run.js';
import type { HumanApprovalChannel } from '../control/approver.js';
import type { TapeEntry } from '../providers/resume-tape.js';
import type { CampaignJob, FromWorker, ToWorker } from './campaign-job.js';

export interface CampaignWorkerPoolOptions {
  /** Worker threads at most (each runs one campaign at a time). */
  size: number;
  /** Environment the workers' providers are configured from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Times a campaign is run again from a clean state when its worker thread dies under it (default 1). */
  retries?: number;
}

export interface CampaignJobHooks {
  signal?: AbortSignal;
  onStart?(total: number): void;
  onProgress?(progress: CampaignProgress): void;
  /** A chain the campaign wrote to for the first time. */
  onRunId?(runId: string): void;
  /** A live answer to record on the campaign's resume tape (providers/resume-tape.ts). */
  onTape?(entry: TapeEntry): void;
  /** Where the runs' human approval requests go (the server's inbox). */
  approvalService?: HumanApprovalChannel;
  /**
   * The worker died under the campaign and it starts again from a clean state on another worker: `runIds` are the
   * chains of the abandoned attempt, to close as interrupted (they are not part of the result). Awaited.
   */
  onRetry?(abandoned: { runIds: ReadonlySet<string>; reason: string; attempt: number }): Promise<void> | void;
}

/** The worker ran the campaign and it failed, or the worker thread itself died. */
export class CampaignWorkerError extends Error {
  override name = 'CampaignWorkerError';
  constructor(
    message: string,
    readonly aborted: boolean,
    /** The worker thread itself died (the campaign did not fail on its own). */
    readonly workerLost = false,
  ) {
    super(message);
  }
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

/**
 * Start the worker script next to this module: the built `.js` in `dist/`, or the `.ts` source (tests and benchmarks
 * run from source), which a worker can only load once tsx's loader is registered inside that thread.
 */
function startWorker(env: Readonly<Record<string, string | undefined>>): Worker {
  const options = { env: { ...env } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./campaign-worker.js', import.meta.url), options);
  // The ESM entry of `tsx/esm/api` (require.resolve would give its CommonJS twin, which cannot register hooks here).
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./campaign-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * A local pool of campaign worker threads, so a CPU-bound campaign never holds the API's event loop: the server
 * hands it a campaign, gets progress and approval requests back over the thread's port, and the result at the end.
 * Workers start on first use, are reused, and a worker that dies is replaced on the next job.
 *
 * @example
 *   const pool = new CampaignWorkerPool({ size: 2 });
 *   const run = await pool.run(job, { onProgress: (p) => console.log(p.done, p.total) });
 *   await pool.close();
 */
export class CampaignWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: CampaignWorkerPoolOptions) {
    if (!(Number.isInteger(options.size) && options.size >= 1)) throw new RangeError('pool size must be >= 1');
  }

  /** Threads started and how many run a campaign now. */
  get load(): { workers: number; busy: number; waiting: number } {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.busy).length,
      waiting: this.waiting.length,
    };
  }

  private async acquire(signal?: AbortSignal): Promise<Slot> {
    for (;;) {
      if (this.closed) throw new CampaignWorkerError('the campaign worker pool is closed', true);
      if (signal?.aborted) throw new CampaignWorkerError('aborted before a worker was free', true);
      const idle = this.slots.find((s) => !s.busy);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.slots.length < this.options.size) {
        const slot: Slot = { worker: this.spawn(), busy: true };
        this.slots.push(slot);
        return slot;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private spawn(): Worker {
    const worker = startWorker(this.options.env ?? process.env);
    worker.unref();
    return worker;
  }

  private release(slot: Slot, dead: boolean): void {
    slot.busy = false;
    if (dead) {
      this.slots.splice(this.slots.indexOf(slot), 1);
      void slot.worker.terminate();
    }
    this.waiting.shift()?.();
  }

  /**
   * Run one campaign on a free worker (waiting for one when all are busy). When the worker thread dies under it,
   * the campaign runs again from a clean state (new chains, its run folder replaced) up to `retries` times, so a
   * result never mixes two attempts. Rejects with `CampaignWorkerError`.
   */
  async run(job: CampaignJob, hooks: CampaignJobHooks = {}): Promise<Omit<CampaignRun, 'scorecard'>> {
    const retries = this.options.retries ?? 1;
    for (let attempt = 0; ; attempt += 1) {
      const runIds = new Set<string>();
      try {
        return await this.attempt(job, {
          ...hooks,
          onRunId: (id) => {
            runIds.add(id);
            hooks.onRunId?.(id);
          },
        });
      } catch (error) {
        const lost = error instanceof CampaignWorkerError && error.workerLost;
        if (!lost || attempt >= retries || this.closed || hooks.signal?.aborted) throw error;
        await hooks.onRetry?.({ runIds, reason: error.message, attempt: attempt + 1 });
      }
    }
  }

  private async attempt(job: CampaignJob, hooks: CampaignJobHooks): Promise<Omit<CampaignRun, 'scorecard'>> {
    const slot = await this.acquire(hooks.signal);
    const { worker } = slot;
    const post = (message: ToWorker) => worker.postMessage(message);
    let dead = false;
    try {
      return await new Promise<Omit<CampaignRun, 'scorecard'>>((resolve, reject) => {
        const onAbort = () => post({ type: 'abort' });
        const cleanup = () => {
          hooks.signal?.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        const onMessage = (message: FromWorker) => {
          switch (message.type) {
            case 'start':
              hooks.onStart?.(message.total);
              break;
            case 'progress':
              hooks.onProgress?.(message.progress);
              break;
            case 'run_id':
              hooks.onRunId?.(message.run_id);
              break;
            case 'tape':
              hooks.onTape?.(message.entry);
              break;
            case 'approval': {
              const approver = hooks.approvalService?.approverFor(message.context);
              const answer = approver ? approver.review(message.pending) : Promise.resolve(null);
              answer.then(
                (verdict) => post({ type: 'verdict', request_id: message.request_id, verdict }),
                () => post({ type: 'verdict', request_id: message.request_id, verdict: null }),
              );
              break;
            }
            case 'done':
              cleanup();
              resolve(message.result.run);
              break;
            case 'failed':
              cleanup();
              reject(new CampaignWorkerError(message.message, message.aborted));
              break;
          }
        };
        const onError = (error: Error) => {
          dead = true;
          cleanup();
          reject(new CampaignWorkerError(`the campaign worker failed: ${error.message}`, false, true));
        };
        const onExit = (code: number) => {
          dead = true;
          cleanup();
          reject(new CampaignWorkerError(`the campaign worker stopped (exit code ${code})`, false, true));
        };
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        hooks.signal?.addEventListener('abort', onAbort, { once: true });
        post({ type: 'run', job, env: { ...(this.options.env ?? process.env) } });
        if (hooks.signal?.aborted) onAbort();
      });
    } finally {
      this.release(slot, dead);
    }
  }

  /**
   * Terminate every worker thread now, as a crash would: their campaigns fail with `CampaignWorkerError` (their
   * chains stay open until the server closes them) and the next job starts a new worker.
   */
  async abandonWorkers(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  /** Stop every worker (running campaigns should be aborted and settled first). */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
