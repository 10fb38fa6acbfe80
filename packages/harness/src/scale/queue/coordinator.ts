import { hostname } from 'node:os';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { AgentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { ResultLocation, RunExecution, RunExecutor, RunOutcome, RunProgress } from '../../core/execution.js';
import { CaseStatus, type TestCaseResult } from '../../core/result.js';
import { checkSuiteUnchanged, enqueueKeys, type PendingKey, recoveryNote, runOutcome } from './coordinator-steps.js';
import {
  BACKOFF_TYPE,
  JOB_NAME,
  type JobData,
  noticesKeyFor,
  PROTOCOL_VERSION,
  queueNameFor,
  REGISTRY_CHANNEL,
  REGISTRY_KEY,
  type RunRecord,
  WORKER_HEARTBEAT_TTL_S,
  workersKeyFor,
} from './protocol.js';
import { bullConnection, connectRedis, failureDescriber, redactRedisUrl } from './redis.js';
import { readRedisRunId, readRedisSetup, redisSetupWarnings } from './redis-setup.js';

/** What the coordinator tells workers about the run, beyond what it derives from the run itself. */
export type RunRecordBody = Pick<RunRecord, 'suite' | 'agent' | 'timeout' | 'retry' | 'runner'>;

export interface CoordinatorOptions {
  /** Redis URL (`redis://host:port[/db]`). */
  url: string;
  run: RunRecordBody;
  /** Suite path as the user typed it (for hints). */
  suitePath: string;
  /** Where notes go (default: stderr). */
  note?: (message: string) => void;
  /** Seconds without a result, while jobs are queued and no worker is connected, before saying so (default 10). */
  stallSeconds?: number;
  /** Seconds Redis may stay unreachable mid-run before the coordinator stops with a partial run (default 300). */
  outageBudgetSeconds?: number;
  /** How often the coordinator reconciles with Redis (default 1000 ms). */
  tickMs?: number;
  /** How often it checks that every unrecorded key still has its job in Redis (default 5000 ms). */
  auditMs?: number;
  /** Jobs per `addBulk` call (default 500). */
  batchSize?: number;
  /**
   * The run is never resumed after a cancellation (soclab campaigns): when the signal aborts it, retire the run at
   * once (workers let go, its queue is obliterated) instead of leaving its jobs queued for a resume.
   */
  retireOnAbort?: boolean;
}

/** How long the coordinator waits after seeing a Redis restart before registering the run again. */
const RESTART_GRACE_MS = 2000;

/** Defaults of the coordinator's timing options, shared with the CLI help and the docs. */
export const COORDINATOR_DEFAULTS = { stallSeconds: 10, outageBudgetSeconds: 300 } as const;

/**
 * An executor for `runExperiment` that runs case x repeat keys on a BullMQ queue instead of in process.
 * It registers the run (so `harness worker` processes pick it up), enqueues one job per key not yet in
 * the journal (job ids derive from the key, so a restarted coordinator enqueues nothing twice), and
 * records results as QueueEvents report them, with a periodic sweep of the completed and failed sets so
 * nothing is missed while it was down or events were trimmed. Each key is journaled at most once per
 * invocation, and keys already journaled are skipped: exactly-once recording over at-least-once execution.
 *
 * The journal, not Redis, is the record: when Redis restarts (its `run_id` changes), the run's registration
 * vanishes, or jobs of unrecorded keys disappear (eviction), the coordinator registers the run again and
 * re-enqueues exactly the unrecorded keys whose jobs are gone. When Redis stays unreachable longer than the
 * outage budget, it stops and the run folder is a valid partial run to resume.
 */
export function queueExecutor(options: CoordinatorOptions): RunExecutor {
  return (execution) => coordinate(options, execution);
}

async function coordinate(options: CoordinatorOptions, ex: RunExecution): Promise<RunOutcome> {
  const { header, hooks, slim, suite, runner } = ex;
  const { journal, skip, signal } = hooks;
  const note = options.note ?? ((m: string) => process.stderr.write(`${m}\n`));
  const tickMs = options.tickMs ?? 1000;
  const auditMs = options.auditMs ?? 5000;
  const stallMs = (options.stallSeconds ?? COORDINATOR_DEFAULTS.stallSeconds) * 1000;
  const budgetMs = (options.outageBudgetSeconds ?? COORDINATOR_DEFAULTS.outageBudgetSeconds) * 1000;
  const batchSize = options.batchSize ?? 500;
  const runId = header.id;
  const queueName = queueNameFor(runId);
  const shownUrl = redactRedisUrl(options.url);
  checkSuiteUnchanged(header, suite);
  const redis: Redis = await connectRedis(options.url);
  const describe = failureDescriber(redis);
  const setup = await readRedisSetup(redis);
  for (const warning of redisSetupWarnings(setup)) note(`harness: warning: ${warning}`);
  let redisRunId = setup.runId;

  const { Queue, QueueEvents, Job } = await import('bullmq');
  const queue: Queue = new Queue(queueName, { connection: bullConnection(options.url, false) });
  const events: QueueEvents = new QueueEvents(queueName, { connection: bullConnection(options.url, true) });
  // Connection errors are reported once per outage by the reconciliation tick, which probes Redis itself.
  queue.on('error', () => {});
  events.on('error', () => {});

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

  // Redis availability: an outage is announced once, its end once; past the budget the run stops.
  let outageSince: number | null = null;
  let gaveUp = false;
  const unreachable = (err: unknown) => {
    const now = Date.now();
    if (outageSince === null) {
      outageSince = now;
      note(
        `harness: lost the connection to Redis at ${shownUrl} (${describe(err)}); reconnecting. Results already recorded are safe in the journal; the run stops with a partial result if Redis stays unreachable for ${budgetMs / 1000} s (--queue-outage-budget)`,
      );
    }
    if (now - outageSince >= budgetMs) gaveUp = true;
  };
  const reachable = () => {
    if (outageSince === null) return;
    note(`harness: Redis at ${shownUrl} is reachable again after ${((Date.now() - outageSince) / 1000).toFixed(1)} s`);
    outageSince = null;
  };
  /** Redis' run_id, or null (outage noted) when it does not answer within a few seconds. */
  const probe = async (): Promise<string | null> => {
    try {
      const id = await withTimeout(readRedisRunId(redis), 3000, 'no answer within 3 s');
      reachable();
      return id;
    } catch (err) {
      unreachable(err);
      return null;
    }
  };

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

  const register = () => registerRun(redis, runRecord(options.run, runId, queueName, header.started_at));
  const jobOf = (jobId: string, key: PendingKey) => jobFor(jobId, key, runId, suite.contentHash, options.run.retry);

  /** Add jobs; while Redis is unreachable, wait for it (within the outage budget). False when giving up. */
  const addJobs = async (ids: string[]): Promise<boolean> => {
    const jobs = ids.flatMap((id) => {
      const key = pending.get(id);
      return key ? [jobOf(id, key)] : [];
    });
    if (jobs.length === 0) return true;
    let failedWhileUp = 0;
    for (;;) {
      try {
        await queue.addBulk(jobs);
        return true;
      } catch (err) {
        // Only an outage is waited out; failing again while Redis answers is a real failure. (Once is not:
        // Redis may have come back between the failed command and the probe.)
        if ((await probe()) !== null && ++failedWhileUp >= 2) throw err;
        if (gaveUp || signal?.aborted) return false;
        await sleep(500);
      }
    }
  };

  /** Unrecorded keys whose job no longer exists in Redis (lost in a restart, evicted, deleted). */
  const missingJobs = () => jobsMissingFromRedis(redis, queue, pending);

  const reenqueue = async (missing: string[]) => {
    for (let i = 0; i < missing.length; i += batchSize) {
      if (!(await addJobs(missing.slice(i, i + batchSize)))) return;
    }
  };

  const recordedSoFar = () => skip.size + progress.done;
  let lastAudit = Date.now();

  /** Redis lost the run (restart, flush): register it again and re-enqueue exactly what is missing. */
  const recover = async (why: 'restarted' | 'unregistered') => {
    lastAudit = Date.now();
    // After a restart, give workers one poll (1 s) to notice it and drop their old queue connections first:
    // a job taken by a connection about to be dropped would wait for its lock to expire before running again.
    if (why === 'restarted') await sleep(RESTART_GRACE_MS);
    await register();
    // Counted in one synchronous step, so that re-enqueued + kept adds up to the run's keys exactly.
    const missing = (await missingJobs()).filter((id) => pending.has(id));
    const waiting = pending.size;
    const recorded = recordedSoFar();
    await reenqueue(missing);
    note(recoveryNote(why, missing.length, waiting, recorded));
  };

  /** Jobs can also vanish without a restart (eviction under memory pressure, a hand-run DEL). */
  const audit = async () => {
    lastAudit = Date.now();
    const missing = (await missingJobs()).filter((id) => pending.has(id));
    if (missing.length === 0) return;
    await reenqueue(missing);
    note(
      `harness: ${missing.length} queued case run(s) vanished from Redis (evicted? check maxmemory-policy); re-enqueued them`,
    );
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

  // Stall detector: said once per stall (it re-arms when results flow again).
  let lastDone = -1;
  let lastChange = Date.now();
  let stallSaid = false;
  let everProcessed = false;
  const detectStall = async () => {
    if (progress.done !== lastDone) {
      if (lastDone >= 0) everProcessed = true;
      lastDone = progress.done;
      lastChange = Date.now();
      stallSaid = false;
      return;
    }
    if (stallSaid || Date.now() - lastChange < stallMs) return;
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
    const queued = Object.values(counts).reduce((a, b) => a + b, 0);
    if (queued === 0 || (await liveWorkers()) > 0) return;
    stallSaid = true;
    note(
      `harness: no result for ${Math.round((Date.now() - lastChange) / 1000)} s: ${queued} case run(s) are queued in ${queueName} and no worker is connected${everProcessed ? ' any more' : ''}. Start one with:  harness worker --queue ${shownUrl}  (this coordinator keeps waiting; Ctrl+C leaves a partial run to resume)`,
    );
  };

  const liveWorkers = () => liveWorkerCount(redis, queue, runId);

  const tick = async () => {
    const current = await probe();
    if (current === null) return;
    try {
      if (current !== redisRunId) {
        redisRunId = current;
        await recover('restarted');
      } else if (!(await redis.hexists(REGISTRY_KEY, runId))) await recover('unregistered');
      else if (Date.now() - lastAudit >= auditMs) await audit();
      await removeRecorded();
      await sweep();
      await showNotices();
      await detectStall();
    } catch (err) {
      unreachable(err);
    }
  };

  let completed = false;
  try {
    await events.waitUntilReady();
    await register();

    await enqueueKeys({
      cases: suite.cases(),
      filter: hooks.filter,
      repeat: runner.repeat,
      skip,
      batchSize,
      signal,
      pending,
      addJobs,
    });
    enqueued = true;
    if (!gaveUp) await sweep().catch(unreachable);

    while (pending.size > 0 && !signal?.aborted && !gaveUp) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => (timer = setTimeout(r, tickMs))), wakeup]);
      // A wake-up (last result, cancellation) wins the race: the pending tick would otherwise keep the process
      // alive for up to tickMs after the run has finished.
      clearTimeout(timer);
      wakeup = new Promise<void>((r) => {
        wake = r;
      });
      if (pending.size === 0 || signal?.aborted) break;
      await tick();
    }
    completed = pending.size === 0;
    if (completed) {
      // Every key is journaled: retire the run so workers let go of it, and free its keys in Redis. A finished
      // run's queue is obliterated: removing its last recorded jobs one by one first would only add time.
      await retire().catch((err: unknown) =>
        note(
          `harness: warning: every result is recorded, but the run's keys could not be removed from Redis (${errorMessage(err)}); workers drop the run once its queue is deleted`,
        ),
      );
    } else if (signal?.aborted && options.retireOnAbort) {
      const dropped = pending.size;
      await retire().catch(() => undefined);
      note(`harness: cancelled; ${dropped} case run(s) not recorded were removed from the queue`);
    } else if (gaveUp) {
      note(
        `harness: Redis at ${shownUrl} stayed unreachable for ${budgetMs / 1000} s (--queue-outage-budget); stopping: ${recordedSoFar()} case run(s) are recorded, ${pending.size} are not`,
      );
    } else {
      await removeRecorded().catch(() => {});
      const current = await probe();
      note(
        current !== null
          ? `harness: ${pending.size} case run(s) are not recorded yet; they stay queued in ${queueName} and workers keep processing them until you resume`
          : `harness: ${pending.size} case run(s) are not recorded; Redis at ${shownUrl} is unreachable`,
      );
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Closing waits for pending commands; during an outage that could be forever, so it is bounded.
    await Promise.all([closeWithin(events, 2000), closeWithin(queue, 2000)]);
    redis.disconnect();
  }

  function retire() {
    return retireRun(redis, queue, runId);
  }

  return runOutcome(kept, locations, progress, completed);
}

/** What the coordinator registers for workers: the protocol, the run's queue, who coordinates, and the run body. */
function runRecord(body: RunRecordBody, runId: string, queueName: string, createdAt: string): RunRecord {
  return {
    protocol: PROTOCOL_VERSION,
    run_id: runId,
    queue: queueName,
    created_at: createdAt,
    coordinator: `${hostname()}:${process.pid}`,
    ...body,
  };
}

/** Register the run so `harness worker` processes pick it up (they also listen on the registry channel). */
async function registerRun(redis: Redis, record: RunRecord): Promise<void> {
  await redis.hset(REGISTRY_KEY, record.run_id, JSON.stringify(record));
  await redis.publish(REGISTRY_CHANNEL, record.run_id);
}

/** The BullMQ job of one key: its id derives from the key; the retry policy is the run's. */
function jobFor(jobId: string, key: PendingKey, runId: string, suiteHash: string, retry: RunRecordBody['retry']) {
  return {
    name: JOB_NAME,
    data: {
      run_id: runId,
      test_id: key.test_id,
      repeat: key.repeat,
      index: key.index,
      suite_hash: suiteHash,
    } satisfies JobData,
    opts: {
      jobId,
      attempts: retry.attempts,
      backoff: { type: BACKOFF_TYPE, delay: retry.base_delay_ms },
    },
  };
}

/** Unrecorded keys whose job no longer exists in Redis (lost in a restart, evicted, deleted). */
async function jobsMissingFromRedis(redis: Redis, queue: Queue, pending: ReadonlyMap<string, PendingKey>) {
  const ids = [...pending.keys()];
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = ids.slice(i, i + 1000);
    const pipe = redis.pipeline();
    for (const id of slice) pipe.exists(queue.toKey(id));
    const replies = (await pipe.exec()) ?? [];
    replies.forEach(([err, exists], j) => {
      if (err) throw err;
      if (exists === 0 && pending.has(slice[j] as string)) missing.push(slice[j] as string);
    });
  }
  return missing;
}

/** Workers whose heartbeat (Redis time) is recent, else BullMQ's count of connected worker clients. */
async function liveWorkerCount(redis: Redis, queue: Queue, runId: string): Promise<number> {
  const [now] = await redis.time();
  const beating = await redis.zcount(workersKeyFor(runId), Number(now) - WORKER_HEARTBEAT_TTL_S, '+inf');
  if (beating > 0) return beating;
  return queue.getWorkersCount().catch(() => 0); // CLIENT LIST may be refused (managed Redis)
}

/** Retire a run: workers let go of it (registry entry gone, channel told) and its keys and queue are removed. */
async function retireRun(redis: Redis, queue: Queue, runId: string): Promise<void> {
  await redis.hdel(REGISTRY_KEY, runId);
  await redis.del(noticesKeyFor(runId), workersKeyFor(runId));
  await redis.publish(REGISTRY_CHANNEL, runId);
  await queue.obliterate({ force: true });
}

/**
 * Close a BullMQ queue or event listener, waiting at most `ms`: a graceful close sends QUIT, which waits for
 * a Redis that may be gone; after that the raw client is dropped, which also stops its reconnection timer
 * (otherwise the process would stay alive retrying).
 */
async function closeWithin(
  target: { close(): Promise<void>; backend: { readonly client: Promise<{ disconnect(): void }> } },
  ms: number,
) {
  const closed = await withTimeout(
    target.close().then(() => true),
    ms,
    'close timed out',
  ).catch(() => false);
  if (closed) return;
  const client = await withTimeout(target.backend.client, 500, 'no client').catch(() => null);
  client?.disconnect();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
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
