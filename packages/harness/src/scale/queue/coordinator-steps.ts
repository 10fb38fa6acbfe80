import type { ResultLocation, RunOutcome, RunProgress } from '../../core/execution.js';
import { resultKey, type TestCaseResult } from '../../core/result.js';
import type { TestCase } from '../../core/testcase.js';
import { sortLocations } from '../../runner/journal.js';
import { jobIdFor } from './protocol.js';

// The steps of the queue coordinator (coordinator.ts) that have logic of their own, each testable without Redis.

/** A key the coordinator waits for: where its result goes and what an error result for it says. */
export interface PendingKey {
  test_id: string;
  test_name: string;
  repeat: number;
  index: number;
  tags: string[];
}

/** Refuse to continue a run whose suite content changed since it started: its queued jobs name the original. */
export function checkSuiteUnchanged(
  header: { id: string; suite: { content_hash?: string | null } },
  suite: { contentHash: string },
): void {
  if (header.suite.content_hash && header.suite.content_hash !== suite.contentHash) {
    throw new Error(
      `the suite changed since run ${header.id} started (content ${suite.contentHash.slice(0, 12)} vs ${header.suite.content_hash.slice(0, 12)}); queued jobs refer to the original`,
    );
  }
}

/** What `enqueueKeys` needs: the run's cases and plan, and where pending keys and jobs go. */
export interface EnqueueInput {
  cases: AsyncIterable<TestCase> | Iterable<TestCase>;
  filter?: (testCase: TestCase) => boolean;
  /** The default repeat count (a case's own `repeat` wins). */
  repeat: number;
  /** Keys already journaled: not enqueued. */
  skip: ReadonlySet<string>;
  batchSize: number;
  signal?: AbortSignal;
  /** Filled with every key to wait for, by job id. */
  pending: Map<string, PendingKey>;
  /** Adds a batch of jobs; false when it gave up (Redis unreachable past the budget, or cancelled). */
  addJobs(ids: string[]): Promise<boolean>;
}

/**
 * Enqueue every case x repeat key not yet journaled, in suite order, in batches: the first is small (at most 50) so
 * workers can start while the rest is enqueued. Job ids derive from the key, so a restarted coordinator adds nothing
 * twice. Returns false when adding stopped early (gave up, or cancelled).
 */
export async function enqueueKeys(input: EnqueueInput): Promise<boolean> {
  const { pending, batchSize, signal } = input;
  let enqueuedJobs = 0;
  let batch: string[] = [];
  const flush = async () => {
    const b = batch;
    batch = [];
    enqueuedJobs += b.length;
    return input.addJobs(b);
  };
  let index = 0;
  let stopped = false;
  for await (const tc of input.cases) {
    const i = index++;
    if (input.filter && !input.filter(tc)) continue;
    const repeats = tc.repeat ?? input.repeat;
    for (let r = 0; r < repeats; r++) {
      const key = resultKey({ test_id: tc.id, repeat: r });
      if (input.skip.has(key)) continue;
      const jobId = jobIdFor(key);
      pending.set(jobId, { test_id: tc.id, test_name: tc.name, repeat: r, index: i, tags: tc.tags });
      batch.push(jobId);
      if (batch.length >= (enqueuedJobs === 0 ? Math.min(50, batchSize) : batchSize)) stopped = !(await flush());
      if (stopped) break;
    }
    if (stopped || signal?.aborted) break;
  }
  if (!stopped) await flush();
  return !stopped && !signal?.aborted;
}

/** What the coordinator says after recovering from a Redis restart or a vanished registration. */
export function recoveryNote(
  why: 'restarted' | 'unregistered',
  missing: number,
  waiting: number,
  recorded: number,
): string {
  const keptText = `${recorded} result(s) already in the journal are kept`;
  if (why === 'unregistered') {
    return `harness: the run's registration vanished from Redis (flushed or deleted); registered it again and re-enqueued ${missing} missing case run(s) (${keptText})`;
  }
  if (missing === 0) return 'harness: Redis restarted; the queue survived it (persistence), nothing was lost';
  if (missing === waiting) {
    return `harness: Redis restarted and lost the queue; re-enqueued ${missing} missing case run(s) (${keptText})`;
  }
  return `harness: Redis restarted and lost ${missing} of ${waiting} queued case run(s); re-enqueued them (${keptText})`;
}

/** The coordinator's answer to runExperiment: recorded results in case-then-repeat order, as the local runner gives. */
export function runOutcome(
  kept: { index: number; result: TestCaseResult }[],
  locations: ResultLocation[],
  progress: RunProgress,
  completed: boolean,
): RunOutcome {
  kept.sort((a, b) => a.index - b.index || a.result.repeat - b.result.repeat);
  return {
    state: completed ? 'completed' : 'cancelled',
    results: kept.map((k) => k.result),
    indexes: kept.map((k) => k.index),
    locations: sortLocations(locations),
    progress,
    retriesUsed: 0,
  };
}

/**
 * Redis availability as the coordinator sees it: an outage is announced once and its end once; once it has lasted
 * the outage budget, `gaveUp` turns true and the run stops with a partial result.
 */
export class OutageWatch {
  private since: number | null = null;
  gaveUp = false;

  constructor(
    private readonly budgetMs: number,
    private readonly shownUrl: string,
    private readonly note: (message: string) => void,
    private readonly describe: (err: unknown) => string,
  ) {}

  /** Redis did not answer: start (and announce) an outage, or check the running one against the budget. */
  unreachable(err: unknown, now = Date.now()): void {
    if (this.since === null) {
      this.since = now;
      this.note(
        `harness: lost the connection to Redis at ${this.shownUrl} (${this.describe(err)}); reconnecting. Results already recorded are safe in the journal; the run stops with a partial result if Redis stays unreachable for ${this.budgetMs / 1000} s (--queue-outage-budget)`,
      );
    }
    if (now - this.since >= this.budgetMs) this.gaveUp = true;
  }

  /** Redis answered: end (and announce the end of) an outage, if one was running. */
  reachable(now = Date.now()): void {
    if (this.since === null) return;
    this.note(
      `harness: Redis at ${this.shownUrl} is reachable again after ${((now - this.since) / 1000).toFixed(1)} s`,
    );
    this.since = null;
  }
}

/** Where a recorded result goes: the journal, the slimmed copy kept for the outcome, and the run's progress hook. */
export interface RecordSinks {
  journal: (result: TestCaseResult, index: number) => ResultLocation;
  slim: (result: TestCaseResult) => TestCaseResult;
  onResult?: (result: TestCaseResult, progress: RunProgress) => void;
}

/**
 * The coordinator's book of keys: which are still pending, what was recorded (each key at most once, whatever the
 * number of deliveries), the progress counts, and which recorded jobs can be removed from Redis.
 */
export class ResultBook {
  readonly pending = new Map<string, PendingKey>();
  readonly kept: { index: number; result: TestCaseResult }[] = [];
  readonly locations: ResultLocation[] = [];
  readonly progress: RunProgress;
  private recorded: string[] = [];

  constructor(
    total: number,
    private readonly sinks: RecordSinks,
  ) {
    this.progress = { done: 0, total, passed: 0, failed: 0, errors: 0 };
  }

  /** Journal the result of a pending key; false when the key is not pending (duplicate delivery, another run). */
  record(jobId: string, result: TestCaseResult): boolean {
    const key = this.pending.get(jobId);
    if (!key) return false;
    this.pending.delete(jobId);
    // The coordinator's key is authoritative (a worker may have found the case by position).
    result.test_id = key.test_id;
    result.repeat = key.repeat;
    this.locations.push(this.sinks.journal(result, key.index));
    this.kept.push({ index: key.index, result: this.sinks.slim(result) });
    const p = this.progress;
    p.done++;
    if (result.status === 'passed') p.passed++;
    else if (result.status === 'error') p.errors++;
    else if (result.status === 'failed') p.failed++;
    if (p.done > p.total) p.total = p.done;
    this.sinks.onResult?.(result, { ...p });
    this.recorded.push(jobId);
    return true;
  }

  /** The job ids recorded since the last call: their jobs can go from Redis (the journal is the record). */
  takeRecorded(): string[] {
    const batch = this.recorded;
    this.recorded = [];
    return batch;
  }
}

/** What the stall check decides this tick: results flowed, it is too early to say, or Redis should be asked. */
export type StallVerdict = 'moving' | 'quiet' | 'check';

/** The stall detector's memory: said once per stall, re-armed when results flow again. */
export class StallWatch {
  private lastDone = -1;
  private lastChange: number;
  private said = false;
  /** Some result arrived after the first tick (so a stall means workers went away, not that none came). */
  everProcessed = false;

  constructor(
    private readonly stallMs: number,
    now = Date.now(),
  ) {
    this.lastChange = now;
  }

  /** Compare the recorded count with the last tick's: `check` when nothing came for stallMs and it was not said. */
  observe(done: number, now = Date.now()): StallVerdict {
    if (done !== this.lastDone) {
      if (this.lastDone >= 0) this.everProcessed = true;
      this.lastDone = done;
      this.lastChange = now;
      this.said = false;
      return 'moving';
    }
    if (this.said || now - this.lastChange < this.stallMs) return 'quiet';
    return 'check';
  }

  /** The stall was announced: silent until results flow again. Returns the seconds without a result. */
  announce(now = Date.now()): number {
    this.said = true;
    return Math.round((now - this.lastChange) / 1000);
  }
}

/** Worker notices not shown yet: each worker's message is shown once, and again only when it changes. */
export class NoticeFilter {
  private readonly seen = new Map<string, string>();

  fresh(notices: Record<string, string>): { worker: string; message: string }[] {
    const out: { worker: string; message: string }[] = [];
    for (const [worker, message] of Object.entries(notices)) {
      if (this.seen.get(worker) === message) continue;
      this.seen.set(worker, message);
      out.push({ worker, message });
    }
    return out;
  }
}

/**
 * The coordinator's wait between ticks: `wait(ms)` ends after ms or at the next `wake()` (last result recorded,
 * cancellation), whichever comes first, and clears its timer so a finished run does not linger for up to ms.
 */
export class Wakeup {
  private wakeNow: () => void = () => {};
  private next = this.arm();

  private arm(): Promise<void> {
    return new Promise<void>((r) => {
      this.wakeNow = r;
    });
  }

  /** End the current (or the next) wait now. */
  wake(): void {
    this.wakeNow();
  }

  async wait(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (timer = setTimeout(r, ms))), this.next]);
    clearTimeout(timer);
    this.next = this.arm();
  }
}
