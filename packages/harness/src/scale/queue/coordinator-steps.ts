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
