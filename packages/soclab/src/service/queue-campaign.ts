/**
 * Distributed campaigns: a soclab campaign is a harness experiment, so `soclab campaign --queue redis://…` runs it
 * through the harness's BullMQ coordinator (jobs keyed campaign × scenario × repeat, exactly-once recording in the
 * journal, re-enqueueing after a Redis restart) and `soclab worker` serves the jobs with the harness's worker host
 * (stalled-job recovery), rebuilding the campaign's agent from the queued request. What travels through Redis is
 * the request below: no provider key, no database URL, no scenario content (workers load their own corpus and must
 * have the same one: its hash is checked).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type RunExecutor, SecretScrubber, type SuiteLike } from '@aeh/harness';
import type { RunRecord } from '@aeh/harness/queue/protocol';
import type { PreparedRun } from '@aeh/harness/queue/worker';
import { z } from 'zod';
import { createSoclabAgent } from '../campaign/adapter.js';
import { CampaignConfigError, CampaignRequest, campaignAgentConfig, seededAgent } from '../campaign/run.js';
import { campaignSuite, selectScenarios } from '../campaign/suite.js';
import { registerAblationModes } from '../modes/ablation-modes.js';
import { isLiveProvider } from '../providers/registry.js';
import { DEFAULT_INCIDENT, loadCorpus } from '../scenarios/loader.js';
import { parseTransformChains } from '../scenarios/variants.js';

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
 * The executor that runs a campaign's scenario runs on `soclab worker` processes. Checks the URL and that Redis
 * answers before anything runs (both are configuration problems: CLI exit 2).
 */
export async function campaignQueueExecutor(url: string, plan: CampaignQueuePlan): Promise<RunExecutor> {
  if (plan.custom) {
    throw new CampaignConfigError(
      '--queue runs the lab as configured on the workers: an injected corpus, provider or approval service cannot travel to them',
    );
  }
  const { checkRedisUrl, connectRedis } = await import('@aeh/harness/queue/redis');
  try {
    checkRedisUrl(url);
    // Unreachable at start: the URL or Redis needs fixing (later outages are ridden out by the coordinator).
    const client = await connectRedis(url);
    client.disconnect();
  } catch (error) {
    throw new CampaignConfigError((error as Error).message);
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
  return queueExecutor({
    url,
    suitePath: `soclab campaign ${plan.label}`,
    note: (m) => process.stderr.write(`${m.replace(/harness worker --queue/g, 'soclab worker --queue')}\n`),
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
}

export interface SoclabWorkerOptions {
  /** Evidence store for every run (`--db`; default SOCLAB_DATABASE_URL, else runs/soclab.sqlite). */
  evidenceUrl?: string;
  /** Where seeded campaigns' chains go when no store is named (their run ids repeat by design). */
  evidenceDir: string;
  /** Distinguishes this worker's seeded evidence files from another worker's on the same machine. */
  workerName: string;
}

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
    const issue = parsed.error.issues[0]!;
    throw new Error(`the queued campaign request is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
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
    const dir = resolve(options.evidenceDir, record.run_id);
    mkdirSync(dir, { recursive: true });
    evidenceUrl = join(dir, `${options.workerName.replace(/[^A-Za-z0-9_.-]/g, '_')}.sqlite`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${evidenceUrl}${suffix}`, { force: true });
  }
  const modeOptions: Record<string, unknown> = request.policyDir ? { policyDir: request.policyDir } : {};
  const agent = await createSoclabAgent({ ...campaignAgentConfig(request, modeOptions), evidenceUrl, corpus });
  const described = agent.describe?.() ?? {};
  const suite = campaignSuite(corpus, selection, {
    adapter: 'soclab',
    options: (described.options ?? {}) as Record<string, unknown>,
    label: described.label,
  });
  if (suite.contentHash !== record.suite.content_hash) {
    await agent.close?.();
    throw new Error(
      `this worker's scenario corpus differs from the coordinator's (content ${suite.contentHash.slice(0, 12)} vs ${record.suite.content_hash.slice(0, 12)}): run workers from the same soclab version and SOCLAB_SCENARIO_DIR`,
    );
  }
  const redactor = new SecretScrubber();
  for (const [name, value] of Object.entries(process.env)) {
    if (!SECRET_NAME.test(name) || !value) continue;
    redactor.addCredential(value);
    if (URL.canParse(value)) redactor.add(decodeURIComponent(new URL(value).password));
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
    agent: seeded ? seededAgent(agent, seeded, queued.label) : agent,
  };
}
