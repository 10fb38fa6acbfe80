import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adapterRegistry } from '../adapters/base.js';
import { errorMessage } from '../core/errors.js';
import type { ExperimentHeader } from '../core/view.js';
import { parseOptions } from '../evaluators/base.js';
import { type RunExperimentOptions, RunSetupError } from '../runner/experiment.js';
import { JOURNAL_FILE } from '../runner/journal.js';
import { DEFAULT_RETRY } from '../runner/retry.js';
import type { LoadedSuite } from '../suites/loader.js';
import type { RecordedMetrics } from './merge.js';
import { remoteAgent } from './remote-agent.js';
import { formatShard, SHARD_ASSIGNMENT, type ShardSpec, shardFilter, shardOfHeader } from './shard.js';

/** The parts of a `harness run` request the scale-out options look at. */
export interface ScaleRequest {
  suitePath: string;
  shard?: ShardSpec;
  queue?: string;
  resume?: string;
  record?: string;
  replay?: string;
  agentSpec?: { adapter: string; options?: Record<string, unknown> };
  timeout?: number;
  concurrency?: number;
  /** `--queue-stall-after`: seconds without a result, jobs queued and no worker, before the coordinator says so. */
  queueStallAfter?: number;
  /** `--queue-outage-budget`: seconds Redis may stay unreachable mid-run before the run stops (partial). */
  queueOutageBudget?: number;
}

/** Suite files up to this size travel in the run record for workers without a checkout. */
const MAX_CARRIED_SUITE = 1 << 20;

/**
 * Apply `--shard` and `--queue` to the options of a run about to start (the `configure` step of
 * `harness run`). A shard keeps its cases' suite positions and records itself in the header; a queued
 * run swaps the local runner for the queue coordinator. Resuming a shard run re-applies its shard.
 */
export async function configureScale(
  request: ScaleRequest,
  options: RunExperimentOptions,
  suite: LoadedSuite,
  note: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
): Promise<void> {
  let shard = request.shard;
  const previous = request.resume ? readHeader(request.resume) : null;
  if (previous) {
    const recorded = shardOfHeader(previous.metadata);
    const scaled = recorded !== null || previous.metadata.queue !== undefined;
    if (scaled && previous.suite.content_hash && previous.suite.content_hash !== suite.contentHash) {
      throw new RunSetupError(
        `cannot resume ${request.resume}: the suite changed since the run started (content ${suite.contentHash.slice(0, 12)}, the run has ${previous.suite.content_hash.slice(0, 12)})`,
      );
    }
    if (recorded && shard && (recorded.index !== shard.index || recorded.count !== shard.count)) {
      throw new RunSetupError(
        `cannot resume ${request.resume} as shard ${formatShard(shard)}: it is shard ${formatShard(recorded)}`,
      );
    }
    if (recorded && !shard) {
      shard = recorded;
      note(`resuming shard ${formatShard(recorded)}`);
    } else if (!recorded && shard) {
      throw new RunSetupError(`cannot resume ${request.resume} as a shard: it ran every case`);
    }
  }

  const recordedMetrics: RecordedMetrics = { metrics: suite.metrics, thresholds: suite.thresholds };
  if (shard) {
    options.caseFilter = shardFilter(shard);
    options.metadata = {
      ...options.metadata,
      shard: { index: shard.index, count: shard.count, assignment: SHARD_ASSIGNMENT },
      suite_metrics: recordedMetrics,
    };
  }

  if (request.queue) {
    if (request.record || request.replay) {
      throw new RunSetupError('--queue cannot be combined with --record or --replay (cassettes are local files)');
    }
    if (request.concurrency !== undefined) {
      note(
        'note: with --queue, concurrency is set on each worker (harness worker --concurrency N); --concurrency is ignored here',
      );
    }
    const { checkRedisUrl, connectRedis, redactRedisUrl, RedisUnreachableError } = await import('./queue/redis.js');
    try {
      checkRedisUrl(request.queue);
    } catch (err) {
      throw new RunSetupError(errorMessage(err));
    }
    // The adapter must exist and its options validate here too, so a typo fails before anything is queued.
    const spec = options.agentSpec ?? suite.agent;
    const plugin = adapterRegistry.get(spec.adapter);
    parseOptions(plugin, spec.options ?? {});
    options.agent = remoteAgent(plugin.name);
    // Fail fast (exit 2, before a run folder exists) when Redis is unreachable at start: the URL or the
    // Redis set-up needs fixing. Later outages are ridden out by the coordinator (within its outage budget).
    const [client] = await Promise.all([
      connectRedis(request.queue).catch((err: unknown) => {
        throw err instanceof RedisUnreachableError ? new RunSetupError(err.message, { cause: err }) : err;
      }),
      import('./queue/coordinator.js'),
      import('bullmq'),
    ]);
    client.disconnect();
    const { queueExecutor } = await import('./queue/coordinator.js');
    const size = statSync(suite.path).size;
    const retry = DEFAULT_RETRY;
    options.execute = queueExecutor({
      url: request.queue,
      suitePath: request.suitePath,
      note,
      stallSeconds: request.queueStallAfter,
      outageBudgetSeconds: request.queueOutageBudget,
      run: {
        suite: {
          name: suite.name,
          version: suite.version,
          content_hash: suite.contentHash,
          path: request.suitePath,
          absolute: suite.path,
          content: size <= MAX_CARRIED_SUITE ? readFileSync(suite.path, 'utf8') : null,
        },
        // As typed: `--agent`'s own options carry no interpolated values (the suite's are re-read by workers).
        agent: request.agentSpec ?? null,
        timeout: request.timeout ?? null,
        retry: {
          attempts: retry.maxAttempts,
          base_delay_ms: retry.baseDelayMs,
          max_delay_ms: retry.maxDelayMs,
          max_retry_after_ms: retry.maxRetryAfterMs,
        },
      },
    });
    options.metadata = {
      ...options.metadata,
      queue: { url: redactRedisUrl(request.queue) },
      suite_metrics: recordedMetrics,
    };
  }
}

/** The header line of a run's journal (first line only; the journal may be large). */
function readHeader(run: string): ExperimentHeader | null {
  const abs = resolve(run);
  const path = abs.endsWith('.jsonl') ? abs : join(abs, JOURNAL_FILE);
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n);
    const nl = text.indexOf('\n');
    const entry = JSON.parse(nl >= 0 ? text.slice(0, nl) : text) as { type?: string; experiment?: ExperimentHeader };
    return entry.type === 'header' && entry.experiment ? entry.experiment : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
