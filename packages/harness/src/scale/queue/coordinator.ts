import { hostname } from 'node:os';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { AgentOutput } from '../../core/agent.js';
import { CaseStatus, resultKey, type TestCaseResult } from '../../core/result.js';
import { type ResultLocation, sortLocations } from '../../runner/journal.js';
import type { RunExecution, RunExecutor, RunOutcome, RunProgress } from '../../runner/runner.js';
import {
  BACKOFF_TYPE,
  JOB_NAME,
  type JobData,
  jobIdFor,
  noticesKeyFor,
  PROTOCOL_VERSION,
  queueNameFor,
  REGISTRY_CHANNEL,
  REGISTRY_KEY,
  type RunRecord,
} from './protocol.js';
import { bullConnection, connectRedis, redactRedisUrl } from './redis.js';

/** What the coordinator tells workers about the run, beyond what it derives from the run itself. */
export type RunRecordBody = Pick<RunRecord, 'suite' | 'agent' | 'timeout' | 'retry'>;

export interface CoordinatorOptions {
  /** Redis URL (`redis://host:port[/db]`). */
  url: string;
  run: RunRecordBody;
  /** Suite path as the user typed it (for the resume hint). */
  suitePath: string;
  /** Where notes go (default: stderr). */
  note?: (message: string) => void;
  /** Seconds without progress and without any connected worker before a hint is printed (default 10). */
  idleHintSeconds?: number;
  /** How often the coordinator reconciles with Redis (default 1000 ms). */
  tickMs?: number;
  /** Jobs per `addBulk` call (default 500). */
  batchSize?: number;
}

interface PendingKey {
  test_id: string;
  test_name: string;
  repeat: number;
  index: number;
  tags: string[];
}

/**
 * An executor for `runExperiment` that runs case x repeat keys on a BullMQ queue instead of in process.
 * It registers the run (so `harness worker` processes pick it up), enqueues one job per key not yet in
 * the journal (job ids derive from the key, so a restarted coordinator enqueues nothing twice), and
 * records results as QueueEvents report them, with a periodic sweep of the completed and failed sets so
 * nothing is missed while it was down or events were trimmed. Each key is journaled at most once per
 * invocation, and keys already journaled are skipped: exactly-once recording over at-least-once execution.
 */
export function queueExecutor(options: CoordinatorOptions): RunExecutor {
  return (execution) => coordinate(options, execution);
}

async function coordinate(options: CoordinatorOptions, ex: RunExecution): Promise<RunOutcome> {
  const { header, hooks, slim, suite, runner } = ex;
  const { journal, skip, signal } = hooks;
  const note = options.note ?? ((m: string) => process.stderr.write(`${m}\n`));
  const tickMs = options.tickMs ?? 1000;
  const runId = header.id;
  const queueName = queueNameFor(runId);
  const shownUrl = redactRedisUrl(options.url);
  if (header.suite.content_hash && header.suite.content_hash !== suite.contentHash) {
    throw new Error(
      `the suite changed since run ${runId} started (content ${suite.contentHash.slice(0, 12)} vs ${header.suite.content_hash.slice(0, 12)}); queued jobs refer to the original`,
    );
  }
  const redis: Redis = await connectRedis(options.url);

  const { Queue, QueueEvents, Job } = await import('bullmq');
  const queue: Queue = new Queue(queueName, { connection: bullConnection(options.url, false) });
  const events: QueueEvents = new QueueEvents(queueName, { connection: bullConnection(options.url, true) });
  let redisTrouble = false;
  const onRedisError = (err: Error) => {
    if (!redisTrouble) note(`harness: Redis connection problem (${err.message}); retrying`);
    redisTrouble = true;
  };
  queue.on('error', onRedisError);
  events.on('error', onRedisError);

  const pending = new Map<string, PendingKey>();
  const kept: { index: number; result: TestCaseResult }[] = [];
  const locations: ResultLocation[] = [];
  const progress: RunProgress = { done: 0, total: hooks.total, passed: 0, failed: 0, errors: 0 };
  let toRemove: string[] = [];
  let enqueued = false;
  let wake: () => void = () => {};
  let wakeup = new Promise<void>((r) => {
    wake = r;
  });
  const onAbort = () => wake();
  signal?.addEventListener('abort', onAbort, { once: true });

  const record = (jobId: string, result: TestCaseResult) => {
    const key = pending.get(jobId);
    if (!key) return; // already recorded (duplicate delivery) or not part of this invocation
    pending.delete(jobId);
    // The coordinator's key is authoritative (a worker may have found the case by position).
    result.test_id = key.test_id;
    result.repeat = key.repeat;
    locations.push(journal.result(result, key.index));
    kept.push({ index: key.index, result: slim(result) });
    progress.done++;
    if (result.status === 'passed') progress.passed++;
    else if (result.status === 'error') progress.errors++;
    else if (result.status === 'failed') progress.failed++;
    if (progress.done > progress.total) progress.total = progress.done;
    hooks.onResult?.(result, { ...progress });
    toRemove.push(jobId);
    if (enqueued && pending.size === 0) wake();
  };

  const recordReturn = (jobId: string, value: unknown) => {
    const key = pending.get(jobId);
    if (!key) return;
    const raw = typeof value === 'string' ? parseJson(value) : value;
    const problem = resultProblem(raw);
    if (problem === null) record(jobId, raw as TestCaseResult);
    else record(jobId, errorResult(key, `a worker returned an invalid result (${problem})`, 1));
  };

  const recordFailure = async (jobId: string) => {
    if (!pending.has(jobId)) return;
    const job = (await Job.fromId(queue, jobId)) as Job | undefined;
    if (!job || (await job.getState()) !== 'failed') return; // a retry is scheduled; not final
    const key = pending.get(jobId);
    if (!key) return;
    record(jobId, errorResult(key, `job failed on the queue: ${job.failedReason}`, Math.max(1, job.attemptsMade)));
  };

  events.on('completed', ({ jobId, returnvalue }) => recordReturn(jobId, returnvalue));
  events.on('failed', ({ jobId }) => {
    recordFailure(jobId).catch(() => {
      // The sweep picks it up.
    });
  });

  /** Record what finished while no event reached us (coordinator restarted, event stream trimmed). */
  const sweep = async () => {
    for (const state of ['completed', 'failed'] as const) {
      const ids = (await queue.getRanges([state], 0, -1)).filter((id) => pending.has(id));
      for (let i = 0; i < ids.length; i += 100) {
        const jobs = await Promise.all(ids.slice(i, i + 100).map((id) => Job.fromId(queue, id)));
        for (const job of jobs) {
          if (!job?.id || !pending.has(job.id)) continue;
          if (state === 'completed') recordReturn(job.id, job.returnvalue);
          else {
            const key = pending.get(job.id) as PendingKey;
            record(
              job.id,
              errorResult(key, `job failed on the queue: ${job.failedReason}`, Math.max(1, job.attemptsMade)),
            );
          }
        }
      }
    }
  };

  /** The journal is the record: once a key is journaled its job can go (keeps Redis small on big runs). */
  const removeRecorded = async () => {
    if (toRemove.length === 0) return;
    const batch = toRemove;
    toRemove = [];
    await Promise.all(batch.map((id) => queue.remove(id).catch(() => 0)));
  };

  const seenNotices = new Map<string, string>();
  const showNotices = async () => {
    const notices = await redis.hgetall(noticesKeyFor(runId));
    for (const [worker, message] of Object.entries(notices)) {
      if (seenNotices.get(worker) === message) continue;
      seenNotices.set(worker, message);
      note(`harness: worker ${worker}: ${message}`);
    }
  };

  let lastDone = -1;
  let lastChange = Date.now();
  let hinted = false;
  const hintIfNoWorkers = async () => {
    if (progress.done !== lastDone) {
      lastDone = progress.done;
      lastChange = Date.now();
      return;
    }
    if (hinted || Date.now() - lastChange < (options.idleHintSeconds ?? 10) * 1000) return;
    if ((await queue.getWorkersCount()) > 0) return;
    hinted = true;
    note(`harness: no worker is processing ${queueName} yet; start some with:  harness worker --queue ${shownUrl}`);
  };

  let completed = false;
  try {
    await events.waitUntilReady();
    const record_: RunRecord = {
      protocol: PROTOCOL_VERSION,
      run_id: runId,
      queue: queueName,
      created_at: header.started_at,
      coordinator: `${hostname()}:${process.pid}`,
      ...options.run,
    };
    await redis.hset(REGISTRY_KEY, runId, JSON.stringify(record_));
    await redis.publish(REGISTRY_CHANNEL, runId);

    // Enqueue every key not yet journaled. Existing job ids (a restarted coordinator) are not re-added.
    const batchSize = options.batchSize ?? 500;
    let enqueuedJobs = 0;
    let batch: {
      name: string;
      data: JobData;
      opts: { jobId: string; attempts: number; backoff: { type: string; delay: number } };
    }[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const b = batch;
      batch = [];
      await queue.addBulk(b);
    };
    let index = 0;
    for await (const tc of suite.cases()) {
      const i = index++;
      if (hooks.filter && !hooks.filter(tc)) continue;
      const repeats = tc.repeat ?? runner.repeat;
      for (let r = 0; r < repeats; r++) {
        const key = resultKey({ test_id: tc.id, repeat: r });
        if (skip.has(key)) continue;
        const jobId = jobIdFor(key);
        pending.set(jobId, { test_id: tc.id, test_name: tc.name, repeat: r, index: i, tags: tc.tags });
        batch.push({
          name: JOB_NAME,
          data: { run_id: runId, test_id: tc.id, repeat: r, index: i, suite_hash: suite.contentHash },
          opts: {
            jobId,
            attempts: options.run.retry.attempts,
            backoff: { type: BACKOFF_TYPE, delay: options.run.retry.base_delay_ms },
          },
        });
        // The first batch is small so workers can start while the rest is enqueued.
        if (batch.length >= (enqueuedJobs === 0 ? Math.min(50, batchSize) : batchSize)) {
          enqueuedJobs += batch.length;
          await flush();
        }
      }
      if (signal?.aborted) break;
    }
    await flush();
    enqueued = true;
    await sweep();

    while (pending.size > 0 && !signal?.aborted) {
      let tick: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => (tick = setTimeout(r, tickMs))), wakeup]);
      // A wake-up (last result, cancellation) wins the race: the pending tick would otherwise keep the process
      // alive for up to tickMs after the run has finished.
      clearTimeout(tick);
      wakeup = new Promise<void>((r) => {
        wake = r;
      });
      if (pending.size === 0 || signal?.aborted) break;
      try {
        await removeRecorded();
        await sweep();
        await showNotices();
        await hintIfNoWorkers();
        redisTrouble = false;
      } catch (err) {
        onRedisError(err instanceof Error ? err : new Error(String(err)));
      }
    }
    completed = pending.size === 0;
    // A finished run's queue is obliterated below: removing its last recorded jobs one by one first would only
    // add a script call per job to the time after the last result.
    if (!completed) await removeRecorded();
    if (completed) {
      // Every key is journaled: retire the run so workers let go of it, and free its keys in Redis.
      await redis.hdel(REGISTRY_KEY, runId);
      await redis.del(noticesKeyFor(runId));
      await redis.publish(REGISTRY_CHANNEL, runId);
      await queue.obliterate({ force: true });
    } else {
      note(
        `harness: ${pending.size} case run(s) stay queued in ${queueName}; workers keep processing them. Collect them with:  harness run ${options.suitePath} --queue ${shownUrl} --resume <run folder>`,
      );
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await events.close().catch(() => {});
    await queue.close().catch(() => {});
    redis.disconnect();
  }

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

const STATUSES: ReadonlySet<string> = new Set(CaseStatus.options);

/**
 * A shape check of a worker's result (workers are harness processes building results with the runner's
 * own code, so a full schema parse per result would only cost time): null when usable, else what is wrong.
 */
export function resultProblem(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'not an object';
  const r = raw as Record<string, unknown>;
  if (typeof r.test_id !== 'string') return 'test_id: expected a string';
  if (typeof r.status !== 'string' || !STATUSES.has(r.status)) return 'status: expected passed|failed|error|skipped';
  const out = r.output as Record<string, unknown> | null;
  if (!out || typeof out !== 'object' || !('output' in out) || !Array.isArray(out.tool_calls)) {
    return 'output: expected an agent output';
  }
  if (!Array.isArray(r.evaluations)) return 'evaluations: expected a list';
  if (typeof r.score !== 'number' || typeof r.duration !== 'number') return 'score/duration: expected numbers';
  if (!Array.isArray(r.tags) || !r.metadata || typeof r.metadata !== 'object') return 'tags/metadata missing';
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The recorded outcome of a key whose job failed for good (e.g. stalled too often, or unrecoverable). */
function errorResult(key: PendingKey, message: string, attempts: number): TestCaseResult {
  const now = new Date().toISOString();
  return {
    test_id: key.test_id,
    test_name: key.test_name,
    repeat: key.repeat,
    status: 'error',
    tags: key.tags,
    output: AgentOutput.parse({ error: message, metadata: { queue_failure: true } }),
    evaluations: [],
    score: 0,
    duration: 0,
    attempts,
    started_at: now,
    finished_at: now,
    metadata: {},
  };
}
