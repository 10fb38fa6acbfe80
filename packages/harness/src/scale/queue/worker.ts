import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { type Agent, adapterRegistry } from '../../adapters/base.js';
import { errorMessage } from '../../core/errors.js';
import type { TestCase } from '../../core/testcase.js';
import { parseOptions } from '../../evaluators/base.js';
import { AgentRunner } from '../../runner/agent-runner.js';
import { backoffDelay, DEFAULT_RETRY, type RetryPolicy } from '../../runner/retry.js';
import type { LoadedSuite } from '../../suites/loader.js';
import {
  BACKOFF_TYPE,
  JobData,
  noticesKeyFor,
  PROTOCOL_VERSION,
  REGISTRY_CHANNEL,
  REGISTRY_KEY,
  RunRecord,
  workersKeyFor,
} from './protocol.js';
import { bullConnection, connectRedis, failureDescriber, redactRedisUrl } from './redis.js';
import { readRedisRunId, readRedisSetup, redisSetupWarnings } from './redis-setup.js';

export interface WorkerHostOptions {
  /** Redis URL (`redis://host:port[/db]`). */
  url: string;
  /** Jobs in flight at once, per run (default 8). */
  concurrency?: number;
  /** Job lock in ms: a killed worker's jobs are retried elsewhere after about this long (default 30000). */
  lockDurationMs?: number;
  /** How often this worker checks for stalled jobs (default: half the lock duration). */
  stalledIntervalMs?: number;
  /** Times a job may be recovered from a dead worker before it fails (default 2). */
  maxStalledCount?: number;
  /** How often the run registry is read (default 1000 ms). */
  pollMs?: number;
  /** A suite file to use instead of the path the coordinator gave (must have the run's content hash). */
  suite?: string;
  /** Only process these run ids. */
  runs?: string[];
  /** Exit after this many seconds with no active run (default: never). */
  idleExitSeconds?: number;
  /** Where status lines go (default: stderr). */
  log?: (message: string) => void;
  /** Which runs this worker serves: records whose `runner` is this (default `harness`, also for records without one). */
  runner?: string;
  /** Build a run's cases, evaluators and agent (default: load the suite file and create its adapter). */
  prepareRun?: (record: RunRecord) => Promise<PreparedRun>;
}

/** What a worker needs to run a queued run's jobs: the cases with their evaluators, and the agent. */
export interface PreparedRun {
  suite: Pick<LoadedSuite, 'name' | 'path' | 'totalCases' | 'baseDir' | 'evaluators' | 'vars' | 'redactor' | 'cases'>;
  agent: Agent;
  cleanup?: () => void;
  /**
   * Wraps each job's case run (e.g. to tag what the agent writes with the job's attempt, or to close what a dead
   * worker's attempt of the same job left open before it runs again). Default: run it as is.
   */
  aroundJob?: <T>(job: QueuedJobAttempt, run: () => Promise<T>) => Promise<T>;
}

/** One job as a worker is about to run it: its case x repeat key, and how often it was taken from dead workers. */
export interface QueuedJobAttempt {
  run_id: string;
  test_id: string;
  repeat: number;
  /** Times BullMQ recovered this job from a worker that stopped renewing its lock (0: first attempt). */
  stalled: number;
  /** Attempts already made after transient errors (BullMQ attemptsMade). */
  attempts_made: number;
}

interface ActiveRun {
  record: RunRecord;
  worker: Worker;
  agent: Agent;
  processed: number;
  cleanup?: () => void;
}

/** A transient agent error handed to BullMQ so its attempts/backoff retry the job. */
class TransientCaseError extends Error {
  override name = 'TransientCaseError';
  constructor(
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/**
 * `harness worker`: watches the run registry in Redis and, for every queued run, loads the run's suite
 * (verifying its content hash) with its adapter and evaluators, then processes that run's jobs with a
 * BullMQ Worker. Variables in the suite are resolved from this machine's environment; results are
 * scrubbed of those secrets before they go back to Redis. Retries of transient agent errors use BullMQ
 * attempts and backoff; a worker that dies mid-case loses its job lock and the job is retried elsewhere.
 */
export class WorkerHost {
  readonly name = `${hostname()}:${process.pid}`;
  readonly #options: WorkerHostOptions;
  readonly #log: (message: string) => void;
  readonly #active = new Map<string, ActiveRun>();
  /** Runs being prepared, or refused until the given time (ms). */
  readonly #blocked = new Map<string, number>();
  #redis: Redis | null = null;
  #subscriber: Redis | null = null;
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  #pollAgain = false;
  #stopping = false;
  #idleSince = Date.now();
  /** Redis' `run_id` when last seen: a change means Redis restarted (and may have lost every run). */
  #redisRunId = '';
  #describe: (err: unknown) => string = errorMessage;
  /** Since when Redis has been unreachable (null: reachable); each outage is reported once. */
  #outageSince: number | null = null;
  /** Last time a queue connection problem was logged, per run (BullMQ reports one per command). */
  readonly #queueTroubleLogged = new Map<string, number>();
  #done: () => void = () => {};
  readonly finished: Promise<void>;

  constructor(options: WorkerHostOptions) {
    this.#options = options;
    this.#log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
    this.finished = new Promise((r) => {
      this.#done = r;
    });
  }

  /** Connect and start watching the registry; resolves once connected. */
  async start(): Promise<void> {
    this.#redis = await connectRedis(this.#options.url);
    this.#describe = failureDescriber(this.#redis);
    const setup = await readRedisSetup(this.#redis);
    this.#redisRunId = setup.runId;
    for (const warning of redisSetupWarnings(setup)) this.#log(`harness worker: warning: ${warning}`);
    const { loadBuiltins } = await import('../../cli/common.js');
    // BullMQ and the plugins load now, not when the first run arrives (joining a run stays quick).
    await Promise.all([loadBuiltins(), import('bullmq'), import('../../suites/loader.js')]);
    this.#log(
      `harness worker ${this.name}: connected to ${redactRedisUrl(this.#options.url)} (concurrency ${this.#concurrency} per run); waiting for runs`,
    );
    // Registry changes are announced on a channel (new runs start at once); polling covers missed ones.
    this.#subscriber = this.#redis.duplicate();
    this.#subscriber.on('error', () => {});
    this.#subscriber.on('message', () => this.#pollNow());
    await this.#subscriber.subscribe(REGISTRY_CHANNEL).catch(() => 0);
    await this.#pollOnce();
    this.#schedule();
  }

  /** Stop taking jobs; in-flight cases finish (graceful) unless `force`. */
  async stop(force = false): Promise<void> {
    if (this.#stopping && !force) return this.finished;
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    await Promise.all([...this.#active.keys()].map((id) => this.#retire(id, force)));
    this.#subscriber?.disconnect();
    this.#subscriber = null;
    this.#redis?.disconnect();
    this.#redis = null;
    this.#done();
  }

  get #concurrency(): number {
    return Math.max(1, Math.floor(this.#options.concurrency ?? 8));
  }

  #schedule(): void {
    if (this.#stopping) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#pollNow(), this.#options.pollMs ?? 1000);
  }

  #pollNow(): void {
    if (this.#stopping) return;
    void this.#pollOnce().finally(() => this.#schedule());
  }

  /** One registry pass at a time; a request during a pass runs another pass right after it. */
  async #pollOnce(): Promise<void> {
    if (this.#polling) {
      this.#pollAgain = true;
      return this.#polling;
    }
    this.#polling = (async () => {
      do {
        this.#pollAgain = false;
        await this.#poll().catch((err) => this.#unreachable(err));
      } while (this.#pollAgain && !this.#stopping);
    })().finally(() => {
      this.#polling = null;
    });
    return this.#polling;
  }

  async #poll(): Promise<void> {
    const redis = this.#redis;
    if (!redis || this.#stopping) return;
    const runId = await readRedisRunId(redis);
    const entries = await redis.hgetall(REGISTRY_KEY);
    this.#reachable();
    const restarted = runId !== this.#redisRunId;
    this.#redisRunId = runId;
    const live = new Set(Object.keys(entries));
    if (restarted) {
      this.#log(
        `harness worker ${this.name}: Redis restarted${this.#active.size > 0 ? '; its runs are picked up again as their coordinators register them again' : ''}`,
      );
      // A BullMQ Worker that lived through the restart may neither fetch again nor close gracefully: drop each
      // run's worker at once (its cases in flight lost their jobs with Redis; the coordinator re-enqueues them,
      // waiting a moment first so that this happens before) and join again with fresh connections (below, or
      // once the coordinator has registered the run again).
      for (const id of [...this.#active.keys()]) await this.#retire(id, true, 'dropped after the Redis restart');
    }
    for (const id of [...this.#active.keys()]) {
      if (!live.has(id)) await this.#retire(id, false);
    }
    for (const [id, text] of Object.entries(entries)) {
      if (this.#active.has(id)) continue;
      if (this.#options.runs && !this.#options.runs.includes(id)) continue;
      // Another kind of worker (e.g. `soclab worker`) serves runs of another runner; not an error for either.
      if (runnerOf(text) !== (this.#options.runner ?? 'harness')) continue;
      const blockedUntil = this.#blocked.get(id);
      if (blockedUntil !== undefined && Date.now() < blockedUntil) continue;
      const parsed = RunRecord.safeParse(parseJson(text));
      if (!parsed.success) {
        this.#blocked.set(id, Date.now() + 60_000);
        const protocol = (parseJson(text) as { protocol?: unknown } | null)?.protocol;
        await this.#notice(
          id,
          protocol !== PROTOCOL_VERSION
            ? `skipped: the run uses queue protocol ${String(protocol)}, this worker speaks ${PROTOCOL_VERSION} (upgrade the harness on one side)`
            : 'skipped: the run record is not readable by this worker',
        );
        continue;
      }
      this.#blocked.set(id, Number.POSITIVE_INFINITY); // preparing
      try {
        await this.#join(parsed.data);
        this.#blocked.delete(id);
      } catch (err) {
        this.#blocked.set(id, Date.now() + 30_000);
        const message = `cannot process run ${id}: ${errorMessage(err)}`;
        this.#log(`harness worker: ${message}`);
        await this.#notice(id, message);
      }
    }
    if (this.#active.size > 0) {
      this.#idleSince = Date.now();
      await this.#heartbeat(redis);
    }
    const idle = this.#options.idleExitSeconds;
    if (idle !== undefined && this.#active.size === 0 && Date.now() - this.#idleSince >= idle * 1000) {
      this.#log(`harness worker ${this.name}: no run for ${idle}s; exiting`);
      void this.stop();
    }
  }

  /** Tell each run's coordinator this worker is alive (its stall detector counts live workers). */
  async #heartbeat(redis: Redis): Promise<void> {
    const [seconds] = await redis.time();
    const pipe = redis.pipeline();
    for (const id of this.#active.keys()) {
      pipe.zadd(workersKeyFor(id), Number(seconds), this.name);
      // Refreshed every poll; expires soon after the last worker stops (or beats once after the run retired).
      pipe.expire(workersKeyFor(id), 60);
    }
    await pipe.exec();
  }

  /** Redis did not answer a registry poll: say so once per outage; ioredis keeps reconnecting with backoff. */
  #unreachable(err: unknown): void {
    if (this.#outageSince !== null) return;
    this.#outageSince = Date.now();
    this.#log(
      `harness worker ${this.name}: lost the connection to Redis at ${redactRedisUrl(this.#options.url)} (${this.#describe(err)}); reconnecting with backoff`,
    );
  }

  #reachable(): void {
    if (this.#outageSince === null) return;
    const seconds = ((Date.now() - this.#outageSince) / 1000).toFixed(1);
    this.#outageSince = null;
    this.#log(`harness worker ${this.name}: Redis is reachable again after ${seconds} s`);
  }

  /**
   * Errors from a run's BullMQ Worker. Connection trouble comes as one error per command while Redis is down
   * or right after it restarted empty (jobs in flight then have no key left to complete): those are logged at
   * most every 30 s per run, with what happens next; anything else is logged as it comes.
   */
  #queueError(runId: string, err: unknown): void {
    const message = errorMessage(err);
    const lostJob = /Missing (key|lock) for job/.test(message);
    const connection =
      /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection is closed|Stream isn't writeable|connect/i.test(message);
    if (!lostJob && !connection) {
      this.#log(`harness worker: run ${runId}: ${message}`);
      return;
    }
    const last = this.#queueTroubleLogged.get(runId) ?? 0;
    if (Date.now() - last < 30_000) return;
    this.#queueTroubleLogged.set(runId, Date.now());
    this.#log(
      lostJob
        ? `harness worker: run ${runId}: a case finished after its job vanished from Redis (${message}); its result is dropped here and the coordinator re-enqueues the case`
        : `harness worker: run ${runId}: Redis connection problem (${message}); BullMQ retries`,
    );
  }

  async #notice(runId: string, message: string): Promise<void> {
    await this.#redis?.hset(noticesKeyFor(runId), this.name, message).catch(() => 0);
  }

  /** Load the run's suite and agent here, then start a BullMQ Worker on its queue. */
  async #join(record: RunRecord): Promise<void> {
    const t0 = performance.now();
    const prepared: Omit<PreparedRun, 'agent'> & { agent?: Agent } = this.#options.prepareRun
      ? await this.#options.prepareRun(record)
      : await this.#loadSuite(record).then((loaded) => ({ ...loaded, agent: undefined }));
    const { suite, cleanup, aroundJob } = prepared;
    let agent: Agent | undefined = prepared.agent;
    try {
      // Cases are indexed while the worker already fetches jobs (a job waits for the index, not the join).
      const cases = new Map<string, TestCase>();
      const byIndex: TestCase[] = [];
      const indexed = (async () => {
        for await (const tc of suite.cases()) {
          cases.set(tc.id, tc);
          byIndex.push(tc);
        }
      })();
      indexed.catch(() => {}); // reported by the first job that needs it
      const ctx = { baseDir: suite.baseDir, env: process.env, secrets: suite.redactor };
      if (!agent) {
        const spec = agentSpec(record, prepared.suite as LoadedSuite);
        const plugin = adapterRegistry.get(spec.adapter);
        const adapterOptions = parseOptions(plugin, spec.options ?? {});
        try {
          agent = await plugin.create(adapterOptions as never, ctx);
        } catch (err) {
          throw new Error(`cannot create the '${plugin.name}' agent: ${errorMessage(err)}`);
        }
      }
      // One retry layer: BullMQ's attempts and backoff. The runner makes a single attempt per job.
      const runner = new AgentRunner(agent, {
        evaluators: suite.evaluators,
        metrics: [],
        timeout: record.timeout ?? undefined,
        retry: { maxAttempts: 1 },
        context: ctx,
        vars: suite.vars,
      });
      const policy: RetryPolicy = {
        ...DEFAULT_RETRY,
        maxAttempts: record.retry.attempts,
        baseDelayMs: record.retry.base_delay_ms,
        maxDelayMs: record.retry.max_delay_ms,
        maxRetryAfterMs: record.retry.max_retry_after_ms,
      };
      const scrub = (text: string) => suite.redactor.text(text);
      const active: ActiveRun = { record, worker: undefined as unknown as Worker, agent, processed: 0, cleanup };

      const processor = async (job: Job, _token?: string, signal?: AbortSignal) => {
        const data = JobData.parse(job.data);
        await indexed;
        const tc = cases.get(data.test_id) ?? byIndex[data.index];
        if (!tc) {
          const { UnrecoverableError } = await import('bullmq');
          throw new UnrecoverableError(`case '${data.test_id}' is not in the suite this worker loaded`);
        }
        const evaluate = () => runner.evaluateCase(tc, data.repeat, signal);
        const result = aroundJob
          ? await aroundJob(
              {
                run_id: data.run_id,
                test_id: data.test_id,
                repeat: data.repeat,
                stalled: job.stalledCounter,
                attempts_made: job.attemptsMade,
              },
              evaluate,
            )
          : await evaluate();
        if (!result) throw new Error('the worker stopped before the case finished');
        const attempt = job.attemptsMade + 1;
        const out = result.output;
        if (out.transient === true && out.error !== null && attempt < (job.opts.attempts ?? 1)) {
          throw new TransientCaseError(scrub(out.error), out.retry_after);
        }
        result.test_id = data.test_id;
        result.attempts = attempt;
        result.metadata = {
          ...result.metadata,
          worker: this.name,
          ...(job.stalledCounter > 0 ? { recovered_from_stalled: job.stalledCounter } : {}),
        };
        active.processed++;
        // Results go back through Redis: scrub this machine's secrets first.
        return suite.redactor.size > 0 ? JSON.parse(scrub(JSON.stringify(result))) : result;
      };

      const { Worker } = await import('bullmq');
      const lockDuration = this.#options.lockDurationMs ?? 30_000;
      const worker = new Worker(record.queue, processor, {
        connection: bullConnection(this.#options.url, true),
        concurrency: this.#concurrency,
        lockDuration,
        stalledInterval: this.#options.stalledIntervalMs ?? Math.max(500, Math.floor(lockDuration / 2)),
        maxStalledCount: this.#options.maxStalledCount ?? 2,
        // After a connection error BullMQ waits this long before fetching again (its default, 15 s, would leave
        // the worker idle long after a short Redis restart).
        runRetryDelay: 1000,
        name: this.name,
        settings: {
          backoffStrategy: (attemptsMade: number, type?: string, err?: Error) => {
            if (type !== BACKOFF_TYPE) return 0;
            const retryAfter = err instanceof TransientCaseError ? err.retryAfter : undefined;
            return Math.round(backoffDelay(policy, attemptsMade, retryAfter));
          },
        },
      });
      worker.on('error', (err) => this.#queueError(record.run_id, err));
      active.worker = worker;
      this.#active.set(record.run_id, active);
      this.#log(
        `harness worker ${this.name}: run ${record.run_id} (suite '${record.suite.name}', ${suite.totalCases} cases from ${suite.path}) joined in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
      );
    } catch (err) {
      await agent?.close?.().catch(() => {});
      cleanup?.();
      throw err;
    }
  }

  async #retire(runId: string, force: boolean, why?: string, withinMs = force ? 2000 : 30_000): Promise<void> {
    const run = this.#active.get(runId);
    if (!run) return;
    this.#active.delete(runId);
    this.#queueTroubleLogged.delete(runId);
    // Bounded: a graceful close waits on Redis, which may be gone; then the connections are dropped.
    const closing = run.worker.close(force).catch(() => {});
    const closed = await Promise.race([closing.then(() => true), sleep(withinMs).then(() => false)]);
    if (!closed) await Promise.race([run.worker.disconnect().catch(() => {}), sleep(2000)]);
    await run.agent.close?.().catch(() => {});
    run.cleanup?.();
    this.#log(
      why
        ? `harness worker ${this.name}: run ${runId} ${why} (${run.processed} case runs processed here so far)`
        : `harness worker ${this.name}: run ${runId} left (${run.processed} case runs processed here)`,
    );
  }

  /**
   * Find the run's suite on this machine: `--suite`, then the coordinator's path relative to this working
   * directory, then its absolute path, then the suite text carried in the record (self-contained suites).
   * Only a file whose content hash matches the run's is used.
   */
  async #loadSuite(record: RunRecord): Promise<{ suite: LoadedSuite; cleanup?: () => void }> {
    const { loadSuite, SuiteValidationError } = await import('../../suites/loader.js');
    const tried: string[] = [];
    const candidates = [this.#options.suite, record.suite.path, record.suite.absolute].filter(
      (p): p is string => typeof p === 'string' && p.length > 0,
    );
    for (const candidate of [...new Set(candidates.map((c) => resolve(c)))]) {
      if (!existsSync(candidate)) continue;
      let suite: LoadedSuite;
      try {
        suite = await loadSuite(candidate);
      } catch (err) {
        if (err instanceof SuiteValidationError) throw new Error(`${err.message}`);
        throw err;
      }
      if (suite.contentHash === record.suite.content_hash) return { suite };
      tried.push(`${candidate} (content ${suite.contentHash.slice(0, 12)})`);
    }
    if (record.suite.content !== null) {
      const dir = mkdtempSync(join(tmpdir(), 'harness-worker-suite-'));
      const file = join(dir, basename(record.suite.absolute));
      writeFileSync(file, record.suite.content);
      const cleanup = () => rmSync(dir, { recursive: true, force: true });
      try {
        const suite = await loadSuite(file);
        if (suite.contentHash === record.suite.content_hash) return { suite, cleanup };
        tried.push('the suite text carried by the run (it references case files this machine does not have)');
      } catch (err) {
        tried.push(`the suite text carried by the run (${errorMessage(err).split('\n')[0]})`);
      }
      cleanup();
    }
    throw new Error(
      `no copy of suite '${record.suite.name}' with content ${record.suite.content_hash.slice(0, 12)} found here` +
        (tried.length > 0 ? `; tried ${tried.join(', ')}` : `; looked for ${record.suite.path}`) +
        '. Run the worker from the same checkout as the coordinator, or pass --suite <file>',
    );
  }
}

/** `--agent` given to the coordinator wins; with the suite's own adapter name and no options, keep its options. */
function agentSpec(record: RunRecord, suite: LoadedSuite): { adapter: string; options?: Record<string, unknown> } {
  const override = record.agent;
  if (!override) return { adapter: suite.agent.adapter, options: suite.agent.options };
  if (!override.options && override.adapter.toLowerCase() === suite.agent.adapter.toLowerCase()) {
    return { adapter: override.adapter, options: suite.agent.options };
  }
  return override;
}

/** The `runner` a registry entry names (`harness` when it names none or is unreadable). */
function runnerOf(text: string): string {
  const runner = (parseJson(text) as { runner?: unknown } | null)?.runner;
  return typeof runner === 'string' ? runner : 'harness';
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
