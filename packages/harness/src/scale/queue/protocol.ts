import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * What the coordinator of a queued run (`harness run --queue`) and its workers (`harness worker`) share
 * through Redis. Nothing here ever holds a resolved `${VAR}`: the suite travels as its path, content hash
 * and raw file text, and each worker interpolates variables from its own environment.
 */

/** Bumped when the records below change incompatibly; a worker skips runs of another protocol. */
export const PROTOCOL_VERSION = 1;

/** Redis hash of active queued runs: field = run id, value = a RunRecord as JSON. */
export const REGISTRY_KEY = 'harness:runs';
/** Channel the coordinator publishes on when the registry changes (workers also poll). */
export const REGISTRY_CHANNEL = 'harness:runs:changed';

/** Queue of one run: derived from the run id, so concurrent runs never share jobs. */
export function queueNameFor(runId: string): string {
  return `harness-run-${runId}`;
}

/**
 * Sorted set of the workers serving a run: member = worker name, score = Redis server time (s) of its last
 * heartbeat. Redis' clock, not the machines', so skewed clocks do not matter; and unlike CLIENT LIST, it
 * survives reconnections (client names are lost with them) and works where CLIENT is not allowed.
 */
export function workersKeyFor(runId: string): string {
  return `harness:run:${runId}:workers`;
}

/** A worker that has not beaten for this long (seconds) is not counted as alive. */
export const WORKER_HEARTBEAT_TTL_S = 10;

/** Redis hash where workers leave notices for a run's coordinator (field = worker name). */
export function noticesKeyFor(runId: string): string {
  return `harness:run:${runId}:notices`;
}

/**
 * Job id of one case x repeat key (`test_id#repeat`). Deterministic, so enqueuing the same key twice (a
 * restarted coordinator) adds nothing; hashed, because BullMQ ids may not contain ':' and case ids may.
 */
export function jobIdFor(key: string): string {
  return `k${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

const AgentOverride = z.object({
  adapter: z.string().min(1),
  options: z.record(z.string(), z.unknown()).optional(),
});

/** A queued run as workers see it. */
export const RunRecord = z.object({
  protocol: z.literal(PROTOCOL_VERSION),
  run_id: z.string().min(1),
  queue: z.string().min(1),
  created_at: z.string(),
  /** `host:pid` of the coordinator. */
  coordinator: z.string(),
  suite: z.object({
    name: z.string(),
    version: z.string(),
    /** SHA-256 of the suite file and its case files; a worker only runs a suite with this hash. */
    content_hash: z.string().min(1),
    /** The path as given to the coordinator (resolved against a worker's working directory first). */
    path: z.string(),
    /** The absolute path on the coordinator's machine. */
    absolute: z.string(),
    /** The raw (uninterpolated) suite file, for workers without a checkout; null when too large. */
    content: z.string().nullable(),
  }),
  /** Which kind of worker runs the jobs (`soclab` for soclab campaigns); absent: `harness worker`. */
  runner: z.string().min(1).optional(),
  /** `--agent` as given to the coordinator; null runs the suite's own agent. */
  agent: AgentOverride.nullable(),
  /** `--timeout` seconds per attempt (a case's own timeout wins); null uses the default. */
  timeout: z.number().positive().nullable(),
  /** Attempts per job for transient agent errors, and the backoff between them. */
  retry: z.object({
    attempts: z.number().int().min(1),
    base_delay_ms: z.number().min(0),
    max_delay_ms: z.number().min(0),
    max_retry_after_ms: z.number().min(0),
  }),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** One job: a case x repeat key, located by id (and by suite position as a fallback). */
export const JobData = z.object({
  run_id: z.string(),
  test_id: z.string(),
  repeat: z.number().int().min(0),
  index: z.number().int().min(0),
  suite_hash: z.string(),
});
export type JobData = z.infer<typeof JobData>;

/** The name BullMQ shows for case jobs. */
export const JOB_NAME = 'case';
/** Custom backoff type: workers compute the delay (exponential with jitter, honouring Retry-After). */
export const BACKOFF_TYPE = 'harness';
