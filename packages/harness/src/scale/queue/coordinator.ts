import { hostname } from 'node:os';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { AgentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { RunExecution, RunExecutor, RunOutcome } from '../../core/execution.js';
import { CaseStatus, type TestCaseResult } from '../../core/result.js';
import {
  checkSuiteUnchanged,
  enqueueKeys,
  NoticeFilter,
  OutageWatch,
  type PendingKey,
  ResultBook,
  recoveryNote,
  runOutcome,
  StallWatch,
  Wakeup,
} from './coordinator-steps.js';
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
  const note = options.note ?? ((m: string) => process.stderr.write(`${m}\n`));
  checkSuiteUnchanged(ex.header, ex.suite);
  const redis: Redis = await connectRedis(options.url);
  const setup = await readRedisSetup(redis);
  for (const warning of redisSetupWarnings(setup)) note(`harness: warning: ${warning}`);
  const bull = await import('bullmq');
  const c = new QueueCoordination(options, ex, note, redis, setup.runId, bull);
  const { signal } = ex.hooks;
  const onAbort = () => c.wakeup.wake();
  signal?.addEventListener('abort', onAbort, { once: true });
  let completed = false;
  try {
    await c.start();
    await c.waitForResults();
    completed = c.book.pending.size === 0;
    await c.finish();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await c.close();
  }
  return runOutcome(c.book.kept, c.book.locations, c.book.progress, completed);
}

/**
 * One coordinator invocation, step by step: `start` (register, enqueue, first sweep), `waitForResults` (wait, then
 * `tick`: probe Redis, `recover` from a restart or a lost registration, `audit` for vanished jobs, remove recorded
 * jobs, `sweep`, show worker notices, detect a stall), `finish` (retire, or say what is left) and `close`.
 */
class QueueCoordination {
  readonly book: ResultBook;
  readonly wakeup = new Wakeup();
  private readonly outage: OutageWatch;
  private readonly stall: StallWatch;
  private readonly notices = new NoticeFilter();
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly Job: typeof Job;
  private readonly runId: string;
  private readonly queueName: string;
  private readonly shownUrl: string;
  private readonly tickMs: number;
  private readonly auditMs: number;
  private readonly budgetMs: number;
  private readonly batchSize: number;
  private enqueued = false;
  private lastAudit = Date.now();

  constructor(
    private readonly options: CoordinatorOptions,
    private readonly ex: RunExecution,
    private readonly note: (message: string) => void,
    private readonly redis: Redis,
    private redisRunId: string,
    bull: typeof import('bullmq'),
  ) {
    this.runId = ex.header.id;
    this.queueName = queueNameFor(this.runId);
    this.shownUrl = redactRedisUrl(options.url);
    this.tickMs = options.tickMs ?? 1000;
    this.auditMs = options.auditMs ?? 5000;
    this.budgetMs = (options.outageBudgetSeconds ?? COORDINATOR_DEFAULTS.outageBudgetSeconds) * 1000;
    this.batchSize = options.batchSize ?? 500;
    this.stall = new StallWatch((options.stallSeconds ?? COORDINATOR_DEFAULTS.stallSeconds) * 1000);
    this.outage = new OutageWatch(this.budgetMs, this.shownUrl, note, failureDescriber(redis));
    const { hooks, slim } = ex;
    // Called as methods of their owners, as the runner's hooks expect.
    this.book = new ResultBook(hooks.total, {
      journal: (result, index) => hooks.journal.result(result, index),
      slim: (result) => slim(result),
      onResult: (result, progress) => hooks.onResult?.(result, progress),
    });
    this.Job = bull.Job;
    this.queue = new bull.Queue(this.queueName, { connection: bullConnection(options.url, false) });
    this.events = new bull.QueueEvents(this.queueName, { connection: bullConnection(options.url, true) });
    // Connection errors are reported once per outage by the reconciliation tick, which probes Redis itself.
    this.queue.on('error', () => {});
    this.events.on('error', () => {});
    this.events.on('completed', ({ jobId, returnvalue }) => this.recordReturn(jobId, returnvalue));
    this.events.on('failed', ({ jobId }) => {
      this.recordFailure(jobId).catch(() => {
        // The sweep picks it up.
      });
    });
  }

  private get signal() {
    return this.ex.hooks.signal;
  }

  /** Register the run, enqueue every key not yet journaled, and record what already finished. */
  async start(): Promise<void> {
    const { suite, runner, hooks } = this.ex;
    await this.events.waitUntilReady();
    await this.register();
    await enqueueKeys({
      cases: suite.cases(),
      filter: hooks.filter,
      repeat: runner.repeat,
      skip: hooks.skip,
      batchSize: this.batchSize,
      signal: this.signal,
      pending: this.book.pending,
      addJobs: (ids) => this.addJobs(ids),
    });
    this.enqueued = true;
    if (!this.outage.gaveUp) await this.sweep().catch((err: unknown) => this.outage.unreachable(err));
  }

  /** Tick until every key is recorded, the run is cancelled, or Redis stayed away past the outage budget. */
  async waitForResults(): Promise<void> {
    const { pending } = this.book;
    while (pending.size > 0 && !this.signal?.aborted && !this.outage.gaveUp) {
      await this.wakeup.wait(this.tickMs);
      if (pending.size === 0 || this.signal?.aborted) break;
      await this.tick();
    }
  }

  /** One reconciliation with Redis; a failure mid-tick counts as an outage (the next tick probes again). */
  async tick(): Promise<void> {
    const current = await this.probe();
    if (current === null) return;
    try {
      if (current !== this.redisRunId) {
        this.redisRunId = current;
        await this.recover('restarted');
      } else if (!(await this.redis.hexists(REGISTRY_KEY, this.runId))) await this.recover('unregistered');
      else if (Date.now() - this.lastAudit >= this.auditMs) await this.audit();
      await this.removeRecorded();
      await this.sweep();
      await this.showNotices();
      await this.detectStall();
    } catch (err) {
      this.outage.unreachable(err);
    }
  }

  /** Retire a completed run (or a cancelled one that is never resumed), else say what is left and where. */
  async finish(): Promise<void> {
    const { pending } = this.book;
    const { shownUrl } = this;
    if (pending.size === 0) {
      // Every key is journaled: retire the run so workers let go of it, and free its keys in Redis. A finished
      // run's queue is obliterated: removing its last recorded jobs one by one first would only add time.
      await this.retire().catch((err: unknown) =>
        this.note(
          `harness: warning: every result is recorded, but the run's keys could not be removed from Redis (${errorMessage(err)}); workers drop the run once its queue is deleted`,
        ),
      );
    } else if (this.signal?.aborted && this.options.retireOnAbort) {
      const dropped = pending.size;
      await this.retire().catch(() => undefined);
      this.note(`harness: cancelled; ${dropped} case run(s) not recorded were removed from the queue`);
    } else if (this.outage.gaveUp) {
      this.note(
        `harness: Redis at ${shownUrl} stayed unreachable for ${this.budgetMs / 1000} s (--queue-outage-budget); stopping: ${this.recordedSoFar()} case run(s) are recorded, ${pending.size} are not`,
      );
    } else {
      await this.removeRecorded().catch(() => {});
      const current = await this.probe();
      this.note(
        current !== null
          ? `harness: ${pending.size} case run(s) are not recorded yet; they stay queued in ${this.queueName} and workers keep processing them until you resume`
          : `harness: ${pending.size} case run(s) are not recorded; Redis at ${shownUrl} is unreachable`,
      );
    }
  }

  /** Closing waits for pending commands; during an outage that could be forever, so it is bounded. */
  async close(): Promise<void> {
    await Promise.all([closeWithin(this.events, 2000), closeWithin(this.queue, 2000)]);
    this.redis.disconnect();
  }

  /** Redis' run_id, or null (outage noted) when it does not answer within a few seconds. */
  private async probe(): Promise<string | null> {
    try {
      const id = await withTimeout(readRedisRunId(this.redis), 3000, 'no answer within 3 s');
      this.outage.reachable();
      return id;
    } catch (err) {
      this.outage.unreachable(err);
      return null;
    }
  }

  private record(jobId: string, result: TestCaseResult): void {
    if (this.book.record(jobId, result) && this.enqueued && this.book.pending.size === 0) this.wakeup.wake();
  }

  private recordReturn(jobId: string, value: unknown): void {
    const key = this.book.pending.get(jobId);
    if (!key) return;
    const raw = typeof value === 'string' ? parseJson(value) : value;
    const problem = resultProblem(raw);
    if (problem === null) this.record(jobId, raw as TestCaseResult);
    else this.record(jobId, errorResult(key, `a worker returned an invalid result (${problem})`, 1));
  }

  private async recordFailure(jobId: string): Promise<void> {
    if (!this.book.pending.has(jobId)) return;
    const job = (await this.Job.fromId(this.queue, jobId)) as Job | undefined;
    if (!job || (await job.getState()) !== 'failed') return; // a retry is scheduled; not final
    this.recordFailed(job);
  }

  private recordFailed(job: Job): void {
    const key = job.id === undefined ? undefined : this.book.pending.get(job.id);
    if (!key || job.id === undefined) return;
    this.record(
      job.id,
      errorResult(key, `job failed on the queue: ${job.failedReason}`, Math.max(1, job.attemptsMade)),
    );
  }

  /** Record what finished while no event reached us (coordinator restarted, event stream trimmed). */
  private async sweep(): Promise<void> {
    const { pending } = this.book;
    for (const state of ['completed', 'failed'] as const) {
      const ids = (await this.queue.getRanges([state], 0, -1)).filter((id) => pending.has(id));
      for (let i = 0; i < ids.length; i += 100) {
        const jobs = await Promise.all(ids.slice(i, i + 100).map((id) => this.Job.fromId(this.queue, id)));
        for (const job of jobs) {
          if (!job?.id || !pending.has(job.id)) continue;
          if (state === 'completed') this.recordReturn(job.id, job.returnvalue);
          else this.recordFailed(job);
        }
      }
    }
  }

  /** The journal is the record: once a key is journaled its job can go (keeps Redis small on big runs). */
  private async removeRecorded(): Promise<void> {
    const batch = this.book.takeRecorded();
    if (batch.length > 0) await Promise.all(batch.map((id) => this.queue.remove(id).catch(() => 0)));
  }

  private register(): Promise<void> {
    const { run } = this.options;
    return registerRun(this.redis, runRecord(run, this.runId, this.queueName, this.ex.header.started_at));
  }

  /** Add jobs; while Redis is unreachable, wait for it (within the outage budget). False when giving up. */
  private async addJobs(ids: string[]): Promise<boolean> {
    const { runId, ex, options } = this;
    const jobs = ids.flatMap((id) => {
      const key = this.book.pending.get(id);
      return key ? [jobFor(id, key, runId, ex.suite.contentHash, options.run.retry)] : [];
    });
    if (jobs.length === 0) return true;
    let failedWhileUp = 0;
    for (;;) {
      try {
        await this.queue.addBulk(jobs);
        return true;
      } catch (err) {
        // Only an outage is waited out; failing again while Redis answers is a real failure. (Once is not:
        // Redis may have come back between the failed command and the probe.)
        if ((await this.probe()) !== null && ++failedWhileUp >= 2) throw err;
        if (this.outage.gaveUp || this.signal?.aborted) return false;
        await sleep(500);
      }
    }
  }

  /** Unrecorded keys whose job no longer exists in Redis (lost in a restart, evicted, deleted). */
  private async missingJobs(): Promise<string[]> {
    const { pending } = this.book;
    return (await jobsMissingFromRedis(this.redis, this.queue, pending)).filter((id) => pending.has(id));
  }

  private async reenqueue(missing: string[]): Promise<void> {
    for (let i = 0; i < missing.length; i += this.batchSize) {
      if (!(await this.addJobs(missing.slice(i, i + this.batchSize)))) return;
    }
  }

  private recordedSoFar(): number {
    return this.ex.hooks.skip.size + this.book.progress.done;
  }

  /** Redis lost the run (restart, flush): register it again and re-enqueue exactly what is missing. */
  private async recover(why: 'restarted' | 'unregistered'): Promise<void> {
    this.lastAudit = Date.now();
    // After a restart, give workers one poll (1 s) to notice it and drop their old queue connections first:
    // a job taken by a connection about to be dropped would wait for its lock to expire before running again.
    if (why === 'restarted') await sleep(RESTART_GRACE_MS);
    await this.register();
    // Counted in one synchronous step, so that re-enqueued + kept adds up to the run's keys exactly.
    const missing = await this.missingJobs();
    const waiting = this.book.pending.size;
    const recorded = this.recordedSoFar();
    await this.reenqueue(missing);
    this.note(recoveryNote(why, missing.length, waiting, recorded));
  }

  /** Jobs can also vanish without a restart (eviction under memory pressure, a hand-run DEL). */
  private async audit(): Promise<void> {
    this.lastAudit = Date.now();
    const missing = await this.missingJobs();
    if (missing.length === 0) return;
    await this.reenqueue(missing);
    this.note(
      `harness: ${missing.length} queued case run(s) vanished from Redis (evicted? check maxmemory-policy); re-enqueued them`,
    );
  }

  private async showNotices(): Promise<void> {
    for (const { worker, message } of this.notices.fresh(await this.redis.hgetall(noticesKeyFor(this.runId)))) {
      this.note(`harness: worker ${worker}: ${message}`);
    }
  }

  /** Say once per stall that jobs are queued and no worker is connected (it re-arms when results flow again). */
  private async detectStall(): Promise<void> {
    if (this.stall.observe(this.book.progress.done) !== 'check') return;
    const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
    const queued = Object.values(counts).reduce((a, b) => a + b, 0);
    if (queued === 0 || (await liveWorkerCount(this.redis, this.queue, this.runId)) > 0) return;
    const seconds = this.stall.announce();
    this.note(
      `harness: no result for ${seconds} s: ${queued} case run(s) are queued in ${this.queueName} and no worker is connected${this.stall.everProcessed ? ' any more' : ''}. Start one with:  harness worker --queue ${this.shownUrl}  (this coordinator keeps waiting; Ctrl+C leaves a partial run to resume)`,
    );
  }

  private retire(): Promise<void> {
    return retireRun(this.redis, this.queue, this.runId);
  }
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
