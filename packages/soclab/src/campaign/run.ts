import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RetryPolicy, RunProgress, TestCaseResult } from '@aeh/harness';
import { loadBuiltinPlugins } from '@aeh/harness/plugins';
import { createRunFolder, runExperiment } from '@aeh/harness/runner';
import { firstZodIssue } from '@aeh/harness/zod-issues';
import type { ModelProvider } from '@aeh/models';
import { z } from 'zod';
import type { CorpusEntry } from '../contracts/campaign.js';
import { sha256Hex } from '../contracts/canonical.js';
import { AuthorityLevel } from '../contracts/enums.js';
import { withReproducibleScope } from '../contracts/reproducible.js';
import type { AttackScenario } from '../contracts/scenarios.js';
import { ABLATABLE_CONTROLS, type AblatableControl } from '../control/ablation-switches.js';
import { parseApproverMode } from '../control/approver.js';
import type { EvidenceStore } from '../evidence/store.js';
import { ablationModeName, registerAblationModes } from '../modes/ablation-modes.js';
import { PROMPT_VERSION } from '../orchestrator/prompts.js';
import { isLiveProvider, providerValidationLabel } from '../providers/registry.js';
import { type ResumeTape, withResumeTape } from '../providers/resume-tape.js';
import { buildScorecard, reportDate, type Scorecard } from '../reports/scorecard.js';
import { loadCorpus, type ScenarioCorpus } from '../scenarios/loader.js';
import { corpusFingerprint, uncheckedCorpusReason } from '../scenarios/validity.js';
import { assess } from '../scoring/engine.js';
import { DEFAULT_PROFILE, type ScoringProfile } from '../scoring/profile.js';
import type { Assessment } from '../scoring/result.js';
import { loadFixture } from '../simulator/fixture.js';
import { createSoclabAgent, type SoclabAgentConfig } from './adapter.js';
import './evaluators/index.js';
import './metrics/index.js';
import { errorMessage } from '@aeh/harness/errors';
import { sleep } from '@aeh/harness/retry';
import { soclabTelemetry } from '../telemetry/session.js';
import { soclabVersion } from '../version.js';
import { type RunRecord, recordOf, scoredRun, trustedRecordOf } from './record.js';
import { slimSoclabResult } from './slim.js';
import { campaignSuite, corpusEntry, selectScenarios } from './suite.js';

/** A campaign request: what to run, against which model, under which configuration. */
export const CampaignRequest = z.strictObject({
  mode: z.enum(['baseline', 'protected']).default('protected'),
  provider: z.string().trim().min(1).default('mock'),
  /** Model label for live providers (the mock takes each scenario's own model). */
  model: z.string().trim().min(1).max(200).optional(),
  /** Azure OpenAI deployment name, when it differs from the model (the model is what is approved and priced). */
  deployment: z.string().trim().min(1).max(200).optional(),
  /** Declared price (USD per million tokens) for a model the price table does not know; spend limits use it. */
  price: z.strictObject({ input_per_million: z.number().min(0), output_per_million: z.number().min(0) }).optional(),
  /** Run a protected campaign with an unpriced model anyway (its spend limit cannot trip). */
  allowUnpriced: z.boolean().default(false),
  level: AuthorityLevel.default('L4'),
  repeats: z.number().int().min(1).max(100).default(1),
  /** Scenario ids to run (default: every applicable scenario). */
  scenarios: z.array(z.string().trim().min(1)).optional(),
  /** Approver simulation for protected mode: none, ideal, rubber_stamp or noisy:p. */
  approver: z.string().trim().min(1).default('none'),
  /** Run protected mode without this control (ablation study). */
  ablate: z.enum(ABLATABLE_CONTROLS).optional(),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Seconds per scenario run (default 300). */
  timeout: z.number().positive().optional(),
  /** Policy folder for protected mode (default SOCLAB_POLICY_DIR or the bundled policy). */
  policyDir: z.string().optional(),
  /** Run user scenarios that have not passed `soclab scenarios check` (also SOCLAB_ALLOW_UNCHECKED_SCENARIOS=1). */
  allowUncheckedScenarios: z.boolean().default(false),
  /**
   * Reproducible mode: ids, timestamps and grant keys derive from this seed (times start at SOURCE_DATE_EPOCH) and
   * wall-clock latency is left out of the scorecard, so the same campaign gives byte-identical reports. See
   * contracts/reproducible.ts for what a seeded campaign gives up (its grants are no secret to who knows the seed).
   */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});
export type CampaignRequest = z.infer<typeof CampaignRequest>;
export type CampaignRequestInput = z.input<typeof CampaignRequest>;

/** What a campaign is, for the scorecard and the reports. */
export interface CampaignInfo {
  campaign_id: string;
  /** Display label: `baseline`, `protected`, or `protected-without-<control>`. */
  label: string;
  mode: 'baseline' | 'protected';
  ablated: AblatableControl | null;
  provider: string;
  /** The provider's validation level and what it was (`soclab providers`); null for injected providers. */
  provider_validation?: string | null;
  model: string;
  authority_level: AuthorityLevel;
  approver: string;
  repeats: number;
  scenarios_requested: string[] | null;
  policy_version: string;
  fixture: { name: string; version: string; sha256: string };
  prompt_version: string;
  incident: { id: string; version: string; title: string };
  started_at: string;
  finished_at: string | null;
  state: string;
  run_dir: string;
  skipped: { scenario_id: string; reason: string }[];
  errors: { scenario_id: string; repeat: number; error: string }[];
  /** The model names the provider reported on its turns (the requested one is `model`): dated snapshots show here. */
  models_returned?: string[];
  /** The corpus hash and, per scenario, its source (`bundled` or a path) and content hash. */
  corpus?: { sha256: string; scenarios: { id: string; source: string; sha256: string }[] };
  /** Set when the campaign ran in the reproducible mode (`--seed`): the seed and the clock's starting time. */
  reproducible?: { seed: number; epoch: string; latency: 'not_reported' } | null;
}

export interface CampaignRun {
  info: CampaignInfo;
  /** The applicable corpus used for scoring (unrun entries count as not resisted). */
  corpus: CorpusEntry[];
  /** One record per scenario run, in corpus order then repeat. */
  records: RunRecord[];
  assessment: Assessment;
  /** The campaign's own scorecard (no comparison); `runStudy` builds comparison scorecards. */
  scorecard: Scorecard;
  runDir: string;
  experimentPath: string;
}

export interface CampaignProgress extends RunProgress {
  scenario_id: string;
  repeat: number;
  attack_succeeded: boolean | null;
}

export interface CampaignHooks {
  signal?: AbortSignal;
  onStart?(info: { runDir: string; total: number; label: string }): void;
  onProgress?(progress: CampaignProgress): void;
  /** Evidence store for every run (default: `evidenceUrl`, SOCLAB_DATABASE_URL, else runs/soclab.sqlite). */
  evidence?: EvidenceStore;
  evidenceUrl?: string;
  /** Build the model for a scenario (overrides the provider registry; embedding applications and tests). */
  providerFactory?: (scenario: AttackScenario) => ModelProvider;
  /**
   * The injected provider answers by itself (like a live model): scenarios that script the model's replies are
   * skipped, as for live providers. Use it for agents under test such as the grounded mock (`conformance/agents.ts`).
   */
  answersItself?: boolean;
  /**
   * An external approval service for approvers that are not simulated (e.g. `human`); forwarded to the mode as
   * `modeOptions.approvalService`. Simulated approvers (none, ideal, rubber_stamp, noisy:p) need none.
   */
  approvalService?: unknown;
  /** Run folder (default `runs/<timestamp>-soclab-<label>`); an earlier campaign run folder there is replaced. */
  runDir?: string;
  runsRoot?: string;
  corpus?: ScenarioCorpus;
  profile?: ScoringProfile;
  /** Retry policy for retryable provider failures (default the harness runner's, with 5 attempts; budget 100). */
  retry?: Partial<RetryPolicy>;
  /** Environment the provider is configured from (default process.env; tests point it at a stand-in). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Redis URL: run the scenario runs on `soclab worker` processes (docs/soclab/operations.md) instead of here. */
  queue?: string;
  /** Seeded campaigns: the reproducible clock's start (default SOURCE_DATE_EPOCH, else now); a resumed one passes its own. */
  epochMs?: number;
  /**
   * Continue the campaign in `runDir` (its journal's finished scenario runs are kept, the rest run) instead of
   * replacing the folder: how the API resumes a seeded campaign that waited for a person across a restart.
   */
  resume?: boolean;
  /**
   * Record live answers on this tape, and on a resume answer the turns it holds from it instead of the model (the
   * API's campaigns with approver human and a live provider; providers/resume-tape.ts).
   */
  tape?: ResumeTape;
}

/** A problem with the request itself (unknown provider, scenario, approver...): CLI exit 2, API 400. */
export class CampaignConfigError extends Error {
  override name = 'CampaignConfigError';
}

/** Remove an earlier campaign's run folder at `dir` (only if it is one); refuse to clobber anything else. */
function prepareRunDir(dir: string): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir);
  if (entries.length === 0) return;
  if (!entries.includes('journal.jsonl') && !entries.includes('experiment.json')) {
    throw new CampaignConfigError(`${dir} exists and is not a run folder; choose another --out`);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Run one campaign as a harness experiment: the corpus becomes a suite (one case per scenario, repeats as harness
 * repeats), the `soclab` agent runs each scenario in the chosen mode, oracle evaluators judge each run, soclab
 * metrics score the run, and the run folder (journal + experiment.json) opens in `harness view` and `harness
 * compare`. Returns the records read back from the journal and the assessment.
 *
 * @example
 *   const run = await runCampaign({ mode: 'protected' }, { runDir: 'runs/demo/protected' });
 *   console.log(run.assessment.authority.level);
 */
export async function runCampaign(request: CampaignRequestInput, hooks: CampaignHooks = {}): Promise<CampaignRun> {
  const parsed = CampaignRequest.safeParse(request);
  if (!parsed.success) {
    throw new CampaignConfigError(`invalid campaign request: ${firstZodIssue(parsed.error)}`);
  }
  const options = parsed.data;
  registerAblationModes();
  if (options.ablate && options.mode !== 'protected') {
    throw new CampaignConfigError('--ablate applies to protected mode only');
  }
  const human = options.approver === 'human' && hooks.approvalService !== undefined;
  if (!human) {
    try {
      parseApproverMode(options.approver);
    } catch (error) {
      throw new CampaignConfigError(errorMessage(error));
    }
  }
  const live = isLiveProvider(options.provider) || hooks.answersItself === true;
  if (!live && options.model && !hooks.providerFactory) {
    throw new CampaignConfigError(
      "--model applies to live providers; the mock's model comes from each scenario (ATK-011 substitutes one on purpose)",
    );
  }
  let corpus: ScenarioCorpus;
  try {
    corpus = hooks.corpus ?? loadCorpus();
  } catch (error) {
    throw new CampaignConfigError(`invalid scenarios:\n${errorMessage(error)}`);
  }
  // A user corpus is evidence only once its oracles are proven reachable and its incident solvable.
  const unchecked = uncheckedCorpusReason(corpus);
  if (unchecked && !options.allowUncheckedScenarios && process.env.SOCLAB_ALLOW_UNCHECKED_SCENARIOS !== '1') {
    throw new CampaignConfigError(`refusing an unchecked scenario corpus: ${unchecked}`);
  }
  let selection: ReturnType<typeof selectScenarios>;
  try {
    selection = selectScenarios(corpus, { live, scenarioIds: options.scenarios });
  } catch (error) {
    throw new CampaignConfigError(errorMessage(error));
  }
  const label = options.ablate ? `protected-without-${options.ablate}` : options.mode;
  const modeOptions: Record<string, unknown> = {};
  if (options.policyDir) modeOptions.policyDir = resolve(options.policyDir);
  if (hooks.approvalService !== undefined) modeOptions.approvalService = hooks.approvalService;

  // OpenTelemetry, when the process started it (`--otel` or OTEL_EXPORTER_OTLP_ENDPOINT): see docs/observability.md.
  const telemetry = soclabTelemetry();
  // Reproducible mode: the clock starts at SOURCE_DATE_EPOCH (else now) and each scenario run gets its own scope.
  const seeded =
    options.seed === undefined ? null : { seed: options.seed, epochMs: hooks.epochMs ?? campaignEpochMs() };
  // Its run ids repeat by design, so unless told otherwise its chains go to a fresh database in its own run folder
  // (a shared one would append a second campaign's events to the first one's chains).
  const seededEvidence =
    seeded && hooks.runDir && !hooks.evidence && !hooks.evidenceUrl && !process.env.SOCLAB_DATABASE_URL
      ? join(resolve(hooks.runDir), 'evidence.sqlite')
      : undefined;
  const tape = hooks.tape;
  let agent: Awaited<ReturnType<typeof createSoclabAgent>>;
  try {
    agent = await createSoclabAgent({
      ...campaignAgentConfig(options, modeOptions),
      evidence: hooks.evidence,
      evidenceUrl: hooks.evidenceUrl ?? seededEvidence,
      corpus,
      providerFactory: hooks.providerFactory,
      // The tape replaces the run's canary values (derived from the incident's fixture canaries) by placeholders.
      wrapProvider: tape
        ? (provider) => withResumeTape(provider, tape, loadFixture(corpus.incident.fixture).data.canary_secrets)
        : undefined,
      retry: hooks.retry,
      env: hooks.env,
      tracing: telemetry?.tracing,
    });
  } catch (error) {
    throw new CampaignConfigError(errorMessage(error));
  }
  const described = agent.describe?.() ?? {};
  const suite = campaignSuite(corpus, selection, {
    adapter: 'soclab',
    options: (described.options ?? {}) as Record<string, unknown>,
    label: described.label,
  });
  // The runner comes from `@aeh/harness/runner`, which (unlike the root) evaluates no built-in plugin: load the
  // built-in metrics the suite names (`success_rate`); soclab's own plugins registered on import above.
  await loadBuiltinPlugins(suite.metrics.map((m) => (typeof m === 'string' ? m : m.name)));
  // The evidence store opens before the first run, so a database that cannot be opened stops the campaign here
  // (EvidenceDatabaseUnavailableError: CLI exit 3) instead of erroring every run into a scorecard. A named database
  // opens before the run folder is touched; a seeded campaign's own one lives in the folder, so it opens once the
  // folder is prepared. Queued runs write their evidence on the workers, which check their own database.
  const openEvidence = async (): Promise<void> => {
    if (hooks.queue) return;
    try {
      await agent.openEvidence();
    } catch (error) {
      await agent.close?.();
      throw error;
    }
  };
  if (!seededEvidence) await openEvidence();
  const runDir = resolve(hooks.runDir ?? createRunFolder(`soclab-${label}`, hooks.runsRoot ?? 'runs'));
  const resuming = hooks.resume === true && existsSync(join(runDir, 'journal.jsonl'));
  if (!resuming) prepareRunDir(runDir);
  if (seededEvidence) await openEvidence();

  const order = new Map(selection.selected.map((s, i) => [s.id, i]));
  // Distributed: the scenario runs go to `soclab worker` processes, which rebuild this agent from the request.
  const execute = hooks.queue
    ? await (await import('../service/queue-campaign.js'))
        .campaignQueueExecutor(hooks.queue, {
          request: options,
          label,
          epochMs: seeded?.epochMs ?? null,
          suite,
          custom: hooks.corpus !== undefined || hooks.providerFactory !== undefined || human,
        })
        .catch(async (error: unknown) => {
          await agent.close?.();
          throw error;
        })
    : undefined;
  let experiment: Awaited<ReturnType<typeof runExperiment>>;
  const inFlight = new Set<Promise<void>>();
  try {
    experiment = await runExperiment({
      suite,
      execute,
      agent: trackingRuns(seeded ? seededAgent(agent, seeded, label) : agent, inFlight),
      // The harness run header (its id is the campaign id) from the seed and the epoch too.
      reproducible: seeded
        ? {
            id: sha256Hex(`soclab-seeded-campaign\0${seeded.seed}\0${label}`).slice(0, 12),
            now: () => new Date(seeded.epochMs),
          }
        : undefined,
      ...(resuming ? { resume: runDir } : { outDir: runDir }),
      repeat: options.repeats,
      concurrency: options.concurrency,
      timeout: options.timeout ?? 300,
      retry: { maxAttempts: 1 },
      signal: hooks.signal,
      slim: slimSoclabResult,
      tracer: telemetry?.tracer,
      metadata: {
        soclab: {
          label,
          mode: options.mode,
          ablated: options.ablate ?? null,
          authority_level: options.level,
          approver: options.approver,
          skipped: selection.skipped,
        },
      },
      onStart: ({ total }) => hooks.onStart?.({ runDir, total, label }),
      onResult: (result: TestCaseResult, progress) => {
        const record = trustedRecordOf(result.output.metadata);
        hooks.onProgress?.({
          ...progress,
          scenario_id: result.test_id,
          repeat: result.repeat,
          attack_succeeded: record ? record.outcome.attack_succeeded : null,
        });
      },
    });
  } catch (error) {
    // The harness's setup errors (nothing ran) are configuration problems.
    if (error instanceof Error && /SetupError$/.test(error.name)) throw new CampaignConfigError(error.message);
    throw error;
  } finally {
    await settledWithin(inFlight, IN_FLIGHT_GRACE_MS);
  }

  // Everything the scorecard shows is read back from the journal.
  const records: RunRecord[] = [];
  const errors: CampaignInfo['errors'] = [];
  for await (const result of experiment.view.results()) {
    const record = recordOf(result.output.metadata);
    if (record) records.push(record);
    else {
      errors.push({
        scenario_id: result.test_id,
        repeat: result.repeat,
        error: result.output.error ?? 'no soclab run record',
      });
    }
  }
  records.sort(
    (a, b) => (order.get(a.outcome.scenario_id) ?? 0) - (order.get(b.outcome.scenario_id) ?? 0) || a.repeat - b.repeat,
  );
  // Wall-clock latency differs between identical runs: a seeded campaign leaves it out of what it scores and
  // reports (the harness journal keeps each call's measured duration for `harness view`).
  if (seeded) records.splice(0, records.length, ...records.map(withoutLatency));
  const scoringCorpus = selection.applicable.map(corpusEntry);
  const assessment = assess({
    runs: records.map(scoredRun),
    corpus: scoringCorpus,
    profile: hooks.profile ?? DEFAULT_PROFILE,
    unscored: errors,
  });
  if (errors.length > 0) {
    assessment.limitations.push(
      `${errors.length} run(s) failed before producing an outcome and are not scored (see the run journal).`,
    );
  }
  const header = experiment.view.header;
  const first = records[0];
  const epoch = seeded ? new Date(seeded.epochMs).toISOString() : null;
  const info: CampaignInfo = {
    campaign_id: header.id,
    label,
    mode: options.mode,
    ablated: options.ablate ?? null,
    provider: first?.outcome.provider ?? options.provider,
    provider_validation: hooks.providerFactory
      ? null
      : providerValidationLabel(first?.outcome.provider ?? options.provider),
    model: first?.outcome.model ?? options.model ?? 'unknown',
    authority_level: options.level,
    approver: options.approver,
    repeats: options.repeats,
    scenarios_requested: options.scenarios ? options.scenarios.map((s) => s.toUpperCase()) : null,
    policy_version:
      records.find((r) => r.policy_version !== 'none')?.policy_version ??
      (options.mode === 'baseline' ? 'none' : 'unknown'),
    fixture: first?.fixture ?? { name: corpus.incident.fixture, version: 'unknown', sha256: 'unknown' },
    prompt_version: PROMPT_VERSION,
    incident: { id: corpus.incident.id, version: corpus.incident.version, title: corpus.incident.title },
    started_at: header.started_at,
    finished_at: header.finished_at,
    state: experiment.state,
    run_dir: runDir,
    skipped: selection.skipped,
    errors,
    models_returned: [...new Set(records.flatMap((r) => r.models_returned ?? []))].sort(),
    corpus: (() => {
      const fp = corpusFingerprint(corpus);
      return { sha256: fp.corpus_sha256, scenarios: fp.scenarios };
    })(),
    reproducible: seeded && epoch ? { seed: seeded.seed, epoch, latency: 'not_reported' } : null,
  };
  const run = {
    info,
    corpus: scoringCorpus,
    records,
    assessment,
    runDir,
    experimentPath: join(runDir, 'experiment.json'),
  };
  // A seeded campaign's scorecard names its run folder without the path to it (reports must not depend on where
  // they were written).
  const runFolder = seeded ? basename(runDir) : undefined;
  return { ...run, scorecard: buildScorecard(run, { version: soclabVersion(), runFolder }) };
}

/** The agent configuration a campaign request gives (also what `soclab worker` rebuilds from a queued request). */
export function campaignAgentConfig(
  options: CampaignRequest,
  modeOptions: Record<string, unknown>,
): Omit<SoclabAgentConfig, 'evidence' | 'evidenceUrl' | 'corpus' | 'providerFactory' | 'retry' | 'env' | 'tracing'> {
  return {
    mode: options.ablate ? ablationModeName(options.ablate) : options.mode,
    provider: options.provider,
    model: options.model ?? null,
    deployment: options.deployment,
    price: options.price,
    allowUnpriced: options.allowUnpriced,
    authorityLevel: options.level,
    approver: options.approver,
    modeOptions,
    withoutLabels: options.ablate === 'labels',
  };
}

/** A record with its wall-clock latency zeroed (reproducible mode). */
function withoutLatency(record: RunRecord): RunRecord {
  return { ...record, outcome: { ...record.outcome, latency_ms: 0 } };
}

/**
 * The campaign's agent with each scenario run (scenario x repeat x attempt) in its own reproducible scope: ids,
 * times and grant keys come from the seed in call order within the run, so concurrency cannot reorder them.
 */
export function seededAgent(agent: SoclabAgent, seeded: { seed: number; epochMs: number }, label: string): SoclabAgent {
  return withRun(agent, (input, ctx) =>
    withReproducibleScope(seeded.seed, `${label}/${ctx.testCase.id}/${ctx.repeat}/${ctx.attempt}`, seeded.epochMs, () =>
      agent.run(input, ctx),
    ),
  );
}

type SoclabAgent = Awaited<ReturnType<typeof createSoclabAgent>>;

/** The agent with another `run`; `close`, `describe` and `openEvidence` still reach the agent itself. */
function withRun(agent: SoclabAgent, run: SoclabAgent['run']): SoclabAgent {
  const { close, describe } = agent;
  return {
    run,
    openEvidence: () => agent.openEvidence(),
    ...(close ? { close: () => close.call(agent) } : {}),
    ...(describe ? { describe: () => describe.call(agent) } : {}),
  };
}

/**
 * How long a campaign that was cancelled (or whose run timed out) waits for its scenario runs still in flight. The
 * harness stops waiting for a case at once, but the run goes on writing its chain until it notices (a run stopped
 * while waiting for a person records the denial, then `run.finished`); whoever then closes the campaign's open
 * chains must come after those writes, not between them.
 */
const IN_FLIGHT_GRACE_MS = 10_000;

/** Notes each scenario run in `inFlight` until it settles. */
function trackingRuns(agent: SoclabAgent, inFlight: Set<Promise<void>>): SoclabAgent {
  return withRun(agent, (input, ctx) => {
    const running = agent.run(input, ctx);
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
    return running;
  });
}

/** Waits until every run in `inFlight` has settled, or `ms` passed (a run stuck in a call that ignores its signal). */
async function settledWithin(inFlight: ReadonlySet<Promise<void>>, ms: number): Promise<void> {
  if (inFlight.size === 0) return;
  const settled = new AbortController();
  await Promise.race([Promise.all(inFlight).then(() => settled.abort()), sleep(ms, settled.signal)]);
  settled.abort();
}

/** The reproducible clock's start: SOURCE_DATE_EPOCH when set (a malformed one is a configuration error), else now. */
function campaignEpochMs(): number {
  try {
    return reportDate().getTime();
  } catch (error) {
    throw new CampaignConfigError(errorMessage(error));
  }
}
