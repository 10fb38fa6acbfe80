/**
 * Distributed campaigns: a soclab campaign is a harness experiment, so `soclab campaign --queue redis://…` runs it
 * through the harness's BullMQ coordinator (jobs keyed campaign × scenario × repeat, exactly-once recording in the
 * journal, re-enqueueing after a Redis restart) and `soclab worker` serves the jobs with the harness's worker host
 * (stalled-job recovery), rebuilding the campaign's agent from the queued request. What travels through Redis is
 * the request below: no provider key, no database URL, no scenario content (workers load their own corpus and must
 * have the same one: its hash is checked).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RunExecutor, SuiteLike } from '@aeh/harness';
import { makeDirectory } from '@aeh/harness/directories';
import { errorMessage } from '@aeh/harness/errors';
import type { RunRecord } from '@aeh/harness/queue/protocol';
import type { connectRedis } from '@aeh/harness/queue/redis';
import type { PreparedRun, QueuedJobAttempt } from '@aeh/harness/queue/worker';
import { SecretScrubber, urlCredentials } from '@aeh/harness/secrets';
import { firstZodIssue } from '@aeh/harness/zod-issues';
import { z } from 'zod';
import { createSoclabAgent } from '../campaign/adapter.js';
import { CampaignConfigError, CampaignRequest, campaignAgentConfig, seededAgent } from '../campaign/run.js';
import { campaignSuite, selectScenarios } from '../campaign/suite.js';
import { notingStore } from '../evidence/noting-store.js';
import { openEvidenceStore } from '../evidence/store.js';
import { registerAblationModes } from '../modes/ablation-modes.js';
import { isLiveProvider } from '../providers/registry.js';
import { DEFAULT_INCIDENT, loadCorpus } from '../scenarios/loader.js';
import { parseTransformChains } from '../scenarios/variants.js';
import { AttemptLedger, attemptsKeyFor, seededEvidenceFile } from './abandoned-attempts.js';

/** The `runner` of soclab runs in the harness run registry: only `soclab worker` takes them. */
export const SOCLAB_RUNNER = 'soclab';

/** What a worker needs to rebuild a campaign's agent and cases (carried as the run record's suite text). */
export const QueuedCampaign = z.strictObject({
  kind: z.literal('soclab-campaign'),
  request: CampaignRequest,
  label: z.string().min(1),
  /** The reproducible clock's start of a seeded campaign (the coordinator's SOURCE_DATE_EPOCH), else null. */
  epoch_ms: z.number().int().nullable(),
  /** SOCLAB_INCIDENT / SOCLAB_TRANSFORMS of the coordinator (null: the default incident, no transforms). */
  incident: z.string().nullable(),
  transforms: z.string().nullable(),
});
export type QueuedCampaign = z.infer<typeof QueuedCampaign>;

/** Environment variables whose values are never sent to Redis (provider keys, database URLs): names that say so. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|DATABASE_URL|_DSN/i;

export interface CampaignQueuePlan {
  request: CampaignRequest;
  label: string;
  epochMs: number | null;
  suite: SuiteLike;
  /** The campaign uses things a worker cannot rebuild (an injected corpus or provider, a human approval service). */
  custom: boolean;
}

/**
 * Check that `url` names Redis and that it answers (never echoing a password). Unreachable at start means the URL
 * or Redis needs fixing; later outages are ridden out by the coordinator. `flag` names the setting in the message.
 */
export async function checkCampaignQueue(url: string, flag = '--queue'): Promise<void> {
  const { checkRedisUrl, connectRedis } = await import('@aeh/harness/queue/redis');
  checkRedisUrl(url, flag);
  const client = await connectRedis(url);
  client.disconnect();
}

/**
 * The executor that runs a campaign's scenario runs on `soclab worker` processes. Checks the URL and that Redis
 * answers before anything runs (both are configuration problems: CLI exit 2).
 */
export async function campaignQueueExecutor(url: string, plan: CampaignQueuePlan): Promise<RunExecutor> {
  if (plan.custom) {
    throw new CampaignConfigError(
      '--queue runs the lab as configured on the workers: an injected corpus, provider or approval service cannot travel to them',
    );
  }
  try {
    await checkCampaignQueue(url);
  } catch (error) {
    throw new CampaignConfigError(errorMessage(error));
  }
  const queued: QueuedCampaign = {
    kind: 'soclab-campaign',
    // A relative policy folder means the coordinator's; workers get the absolute path (same checkout layout).
    request: { ...plan.request, policyDir: plan.request.policyDir ? resolve(plan.request.policyDir) : undefined },
    label: plan.label,
    epoch_ms: plan.epochMs,
    incident: process.env.SOCLAB_INCIDENT || null,
    transforms: process.env.SOCLAB_TRANSFORMS || null,
  };
  const { queueExecutor } = await import('@aeh/harness/queue/coordinator');
  const execute = queueExecutor({
    url,
    suitePath: `soclab campaign ${plan.label}`,
    note: (m) => process.stderr.write(`${m.replace(/harness worker --queue/g, 'soclab worker --queue')}\n`),
    // A soclab campaign is never resumed from a partial run folder: a cancelled one leaves nothing queued.
    retireOnAbort: true,
    run: {
      runner: SOCLAB_RUNNER,
      suite: {
        name: plan.suite.name,
        version: plan.suite.version,
        content_hash: plan.suite.contentHash,
        path: `soclab:${plan.label}`,
        absolute: `soclab:${plan.label}`,
        content: JSON.stringify(queued),
      },
      agent: null,
      timeout: plan.request.timeout ?? 300,
      // One attempt, as in a local campaign: the soclab agent retries provider failures itself.
      retry: { attempts: 1, base_delay_ms: 0, max_delay_ms: 0, max_retry_after_ms: 0 },
    },
  });
  return async (execution) => {
    const outcome = await execute(execution);
    // Every scenario run is recorded (or the campaign's queue was removed): nothing can be recovered any more, so
    // the notes of which chains each attempt wrote go too (a worker closing a dead attempt read them when it began).
    if (outcome.state === 'completed' || execution.hooks.signal?.aborted) {
      const { connectRedis } = await import('@aeh/harness/queue/redis');
      const client = await connectRedis(url).catch(() => null);
      await client?.del(attemptsKeyFor(execution.header.id)).catch(() => 0);
      client?.disconnect();
    }
    return outcome;
  };
}

export interface SoclabWorkerOptions {
  /** Evidence store for every run (`--db`; default SOCLAB_DATABASE_URL, else runs/soclab.sqlite). */
  evidenceUrl?: string;
  /** Where seeded campaigns' chains go when no store is named (their run ids repeat by design). */
  evidenceDir: string;
  /** Distinguishes this worker's seeded evidence files from another worker's on the same machine. */
  workerName: string;
  /**
   * Redis of the queue, for the notes of which chains each attempt writes (so a worker that recovers a dead one's
   * scenario run can close that attempt's chain). Without it, abandoned chains stay open.
   */
  redis?: () => Promise<Awaited<ReturnType<typeof connectRedis>>>;
  /** Where the worker's status lines go (default stderr). */
  log?: (message: string) => void;
}

/** The queued job a scenario run belongs to, as the harness worker announced it (see `aroundJob`). */
const currentJob = new AsyncLocalStorage<QueuedJobAttempt>();

/**
 * Rebuild a queued campaign here: the corpus from this machine (its hash must match the coordinator's), the soclab
 * agent from the request with this machine's provider keys, and a scrubber for every secret-named variable so a
 * result never carries one back through Redis.
 */
export async function prepareQueuedCampaign(record: RunRecord, options: SoclabWorkerOptions): Promise<PreparedRun> {
  let parsed: ReturnType<typeof QueuedCampaign.safeParse>;
  try {
    if (record.suite.content === null) throw new Error('no content');
    parsed = QueuedCampaign.safeParse(JSON.parse(record.suite.content));
  } catch {
    throw new Error('the run carries no readable soclab campaign request');
  }
  if (!parsed.success) {
    throw new Error(`the queued campaign request is invalid at ${firstZodIssue(parsed.error)}`);
  }
  const queued = parsed.data;
  const request = queued.request;
  registerAblationModes();
  const corpus = loadCorpus({
    incident: queued.incident ?? DEFAULT_INCIDENT,
    transforms: parseTransformChains(queued.transforms ?? ''),
  });
  const selection = selectScenarios(corpus, { live: isLiveProvider(request.provider), scenarioIds: request.scenarios });
  const seeded =
    request.seed === undefined || queued.epoch_ms === null ? null : { seed: request.seed, epochMs: queued.epoch_ms };
  let evidenceUrl = options.evidenceUrl ?? process.env.SOCLAB_DATABASE_URL;
  if (!evidenceUrl && seeded) {
    // A fresh store per campaign and worker, as a local seeded campaign gets one in its run folder.
    evidenceUrl = seededEvidenceFile(options.evidenceDir, record.run_id, options.workerName);
    makeDirectory(dirname(evidenceUrl));
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${evidenceUrl}${suffix}`, { force: true });
  }
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const store = await openEvidenceStore(evidenceUrl);
  const ledger = options.redis
    ? new AttemptLedger({
        redis: await options.redis(),
        campaignRunId: record.run_id,
        worker: options.workerName,
        store,
        evidenceDir: options.evidenceDir,
        log: (m) => log(`soclab worker ${options.workerName}: run ${record.run_id}: ${m}`),
      })
    : null;
  const closeAll = async () => {
    await ledger?.stop();
    await store.close();
  };
  const evidence = notingStore(store, async (runId) => {
    const job = currentJob.getStore();
    if (!job || !ledger) return;
    // Best effort: Redis briefly away must not fail the scenario run; only a later close of this chain is lost.
    await ledger
      .noteChain(job, runId)
      .catch((error: unknown) =>
        log(
          `soclab worker ${options.workerName}: run ${record.run_id}: could not note chain ${runId} in Redis (${errorMessage(error)}); if this worker dies now, the chain is not closed for it`,
        ),
      );
  });
  const modeOptions: Record<string, unknown> = request.policyDir ? { policyDir: request.policyDir } : {};
  let agent: Awaited<ReturnType<typeof createSoclabAgent>>;
  try {
    agent = await createSoclabAgent({ ...campaignAgentConfig(request, modeOptions), evidence, corpus });
  } catch (error) {
    await closeAll();
    throw error;
  }
  const described = agent.describe?.() ?? {};
  const suite = campaignSuite(corpus, selection, {
    adapter: 'soclab',
    options: (described.options ?? {}) as Record<string, unknown>,
    label: described.label,
  });
  if (suite.contentHash !== record.suite.content_hash) {
    await agent.close?.();
    await closeAll();
    throw new Error(
      `this worker's scenario corpus differs from the coordinator's (content ${suite.contentHash.slice(0, 12)} vs ${record.suite.content_hash.slice(0, 12)}): run workers from the same soclab version and SOCLAB_SCENARIO_DIR`,
    );
  }
  const redactor = new SecretScrubber();
  for (const [name, value] of Object.entries(process.env)) {
    if (!SECRET_NAME.test(name) || !value) continue;
    redactor.addCredential(value);
    // A URL's password (raw and decoded) and credential query values; a stray % no longer throws here.
    for (const secret of urlCredentials(value)) redactor.add(secret);
  }
  return {
    suite: {
      name: suite.name,
      path: record.suite.path,
      totalCases: suite.totalCases,
      baseDir: suite.baseDir,
      evaluators: suite.evaluators,
      vars: {},
      redactor,
      cases: async function* () {
        yield* suite.cases();
      },
    },
    agent: seeded ? recoverableSeededAgent(agent, seeded, queued.label) : agent,
    aroundJob: (job, run) => {
      // A scenario run taken from a dead worker: close what that attempt left open (in the background).
      ledger?.recover(job);
      return currentJob.run(job, run).finally(() => ledger?.forget(job));
    },
    cleanup: () => {
      void closeAll().catch(() => undefined);
    },
  };
}

/**
 * A seeded agent whose recovered attempts get scopes of their own: the first attempt of a scenario run has the
 * scope of a local run (so results stay byte-identical), and the n-th recovery from a dead worker adds
 * `~recovered<n>`, so its run id (and every id and grant key) differs from the dead attempt's and its events never
 * join that attempt's chain.
 */
function recoverableSeededAgent(
  agent: Awaited<ReturnType<typeof createSoclabAgent>>,
  seeded: { seed: number; epochMs: number },
  label: string,
): Awaited<ReturnType<typeof createSoclabAgent>> {
  const first = seededAgent(agent, seeded, label);
  return {
    ...first,
    run: (input, ctx) => {
      const stalled = currentJob.getStore()?.stalled ?? 0;
      const scoped = stalled > 0 ? seededAgent(agent, seeded, `${label}~recovered${stalled}`) : first;
      return scoped.run(input, ctx);
    },
  };
}
