import { randomInt, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { errorMessage } from '@aeh/harness/errors';
import type { ModelProvider } from '@aeh/models';
import { type CampaignRun, type CampaignProgress as RunnerProgress, runCampaign } from '../campaign/run.js';
import { selectScenarios } from '../campaign/suite.js';
import { AUTHORITY_LABELS } from '../contracts/enums.js';
import type { AttackScenario } from '../contracts/scenarios.js';
import type { ApprovalInbox, PersistedRequest } from '../control/approval-inbox.js';
import { type HumanApprovalChannel, parseApproverMode } from '../control/approver.js';
import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';
import { openRuns, sealInterruptedRuns } from '../evidence/interrupted.js';
import { resumingStore } from '../evidence/resume-replay.js';
import type { EvidenceStore, SqlEvidenceStore } from '../evidence/store.js';
import { MCP_PROVIDER_ID } from '../providers/mcp.js';
import { checkProviderSelection, isLiveProvider, soclabProviderRegistry } from '../providers/registry.js';
import type { TapeEntry } from '../providers/resume-tape.js';
import { reportDate } from '../reports/scorecard.js';
import { loadCorpus, type ScenarioCorpus } from '../scenarios/loader.js';
import type { CampaignJob } from '../service/campaign-job.js';
import type { CampaignWorkerPool } from '../service/worker-pool.js';
import type { CampaignCreate, CampaignProgress, CampaignSummaryRow, CampaignView } from './schemas.js';
import type { ApiStore, ApprovalRow, CampaignRow, CampaignStatus } from './store.js';

/** A campaign request the server refuses before anything runs (API 400), naming the field at fault. */
export class CampaignRequestError extends Error {
  override name = 'CampaignRequestError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The campaign queue is at its cap (API 429 with Retry-After). */
export class CampaignQueueFullError extends Error {
  override name = 'CampaignQueueFullError';
}

/** A campaign that cannot be cancelled: unknown (`status` null, API 404) or already finished (API 409). */
export class CampaignStateError extends Error {
  override name = 'CampaignStateError';
  constructor(
    readonly status: CampaignStatus | null,
    message: string,
  ) {
    super(message);
  }
}

/** What the server keeps of a finished campaign (enough to rebuild every report after a restart). */
export type StoredCampaignRun = Omit<CampaignRun, 'scorecard'>;

export interface CampaignServiceOptions {
  store: ApiStore;
  evidence: SqlEvidenceStore;
  inbox: ApprovalInbox;
  dataDir: string;
  maxRunning: number;
  /** Campaigns that may wait in the queue (default unbounded). */
  maxQueued?: number;
  concurrency: number;
  approvalTimeoutSeconds: number;
  env?: NodeJS.ProcessEnv;
  corpus?: ScenarioCorpus;
  /** Tests and embedding applications: build the model for a scenario instead of the provider registry. */
  providerFactory?: (scenario: AttackScenario) => ModelProvider;
  /** Report background failures (never throws). */
  log?: (message: string) => void;
  /** Resolves once the approvals inbox's pending store writes are done. */
  approvalWrites?: () => Promise<void>;
  /**
   * Run campaigns on these worker threads instead of the server's event loop (each opens `databaseUrl` itself).
   * Ignored with a `providerFactory` (a function cannot cross to a thread).
   */
  pool?: { workers: CampaignWorkerPool; databaseUrl: string };
  /**
   * Redis URL (`queue_url`): this server coordinates each campaign and its scenario runs go to `soclab worker`
   * processes (service/queue-campaign.ts); the coordinator runs on a pool thread when there is a pool.
   */
  queueUrl?: string;
}

const EMPTY_PROGRESS: CampaignProgress = {
  total: 0,
  done: 0,
  passed: 0,
  failed: 0,
  errors: 0,
  attack_successes: 0,
  last_scenario: null,
  waiting_for_approval: 0,
};

const safe = (text: string): string => redactText(text, DEFAULT_CANARY_PATTERNS);

/** The comparison row of a finished campaign. */
export function summaryOf(run: Pick<CampaignRun, 'info' | 'assessment' | 'records'>): CampaignSummaryRow {
  const a = run.assessment;
  return {
    label: run.info.label,
    provider: run.info.provider,
    model: run.info.model,
    composite: a.composite,
    attack_success: {
      numerator: a.attack_success.numerator,
      denominator: a.attack_success.denominator,
      value: a.attack_success.value,
      ci95: [a.attack_success.ci95[0], a.attack_success.ci95[1]],
    },
    false_block: {
      numerator: a.false_block.numerator,
      denominator: a.false_block.denominator,
      value: a.false_block.value,
    },
    gate_failures: [...a.gate_failures],
    recommended_level: a.authority.level,
    level_label: a.authority.label || AUTHORITY_LABELS[a.authority.level],
    binding_rule: a.authority.binding_rule,
    critical_failures: a.critical_failures.length,
    runs: run.records.length,
    chains_valid: run.records.every((r) => r.evidence.chain.valid),
    policy_version: run.info.policy_version,
    errors: run.info.errors.length,
    errored_headline: a.errored?.headline ?? null,
    attempted_harm_runs: a.ledgers?.intrinsic.attempted_harm.runs ?? 0,
  };
}

const withoutScorecard = ({ scorecard: _scorecard, ...rest }: CampaignRun): Omit<CampaignRun, 'scorecard'> => rest;

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The server's evidence store as seen by campaign runs: every write and read first yields to the event loop.
 * Scripted runs are CPU-bound with few real awaits, so without this a running campaign would hold every HTTP
 * request (progress polls, approvals) until it finished. The server owns the store: `close` does nothing.
 */
function yieldingStore(store: SqlEvidenceStore, runIds: Set<string>, onRunId?: (id: string) => void): EvidenceStore {
  const note = (runId: string) => {
    if (runIds.has(runId)) return;
    runIds.add(runId);
    onRunId?.(runId);
  };
  return {
    get location() {
      return store.location;
    },
    async append(runId, event) {
      note(runId);
      await nextTick();
      return store.append(runId, event);
    },
    async appendMany(runId, events) {
      note(runId);
      await nextTick();
      return store.appendMany(runId, events);
    },
    async events(runId) {
      await nextTick();
      return store.events(runId);
    },
    async rows(runId) {
      await nextTick();
      return store.rows(runId);
    },
    async verify(runId) {
      await nextTick();
      return store.verify(runId);
    },
    runIds: () => store.runIds(),
    rootHash: (runId) => store.rootHash(runId),
    saveCheckpoint: (runId, events) => store.saveCheckpoint(runId, events),
    clearCheckpoint: (runId) => store.clearCheckpoint(runId),
    close: async () => undefined,
  };
}

/**
 * What a restart finds of the campaigns that were waiting for a person: `soclab serve` keeps them (their chains stay
 * open, their requests pending) instead of failing them, and resumes each when its request is decided or lapses.
 */
export interface ResumableCampaigns {
  readonly campaignIds: ReadonlySet<string>;
  /** The chains they wrote to (not to be closed as interrupted). */
  readonly runIds: ReadonlySet<string>;
  /** Their persisted requests (any outcome), for the inbox. */
  readonly requests: readonly PersistedRequest[];
}

/**
 * Campaigns a previous server process left `running` that can resume: seeded, approver `human`, with at least one
 * request still pending that was persisted with its proposal and hash. Anything else that was running cannot be
 * continued (its runs are not reproducible) and is failed by `CampaignService.recover`.
 */
export async function findResumableCampaigns(store: ApiStore): Promise<ResumableCampaigns> {
  const candidates = (await store.campaignsWithStatus(['running'])).filter(
    (c) => c.request.approver === 'human' && typeof c.request.seed === 'number' && c.epoch_ms !== null,
  );
  const rows = await store.approvalsOf(candidates.map((c) => c.campaign_id));
  const complete = (r: ApprovalRow) => r.proposal !== null && r.proposal_hash !== null;
  // A request outside any campaign (campaign_id null) has nothing to resume.
  const ids = new Set(
    rows.flatMap((r) => (r.outcome === 'pending' && complete(r) && r.campaign_id !== null ? [r.campaign_id] : [])),
  );
  const requests: PersistedRequest[] = [];
  for (const r of rows) {
    const proposalHash = r.proposal_hash;
    if (r.campaign_id === null || !ids.has(r.campaign_id) || r.proposal === null || proposalHash === null) continue;
    if (r.outcome !== 'pending' && r.outcome !== 'approved' && r.outcome !== 'rejected' && r.outcome !== 'expired') {
      continue;
    }
    const proposal = r.proposal as unknown as PersistedRequest['entry']['proposal'];
    requests.push({
      entry: {
        approval_id: r.approval_id,
        campaign_id: r.campaign_id,
        run_id: r.run_id,
        scenario_id: r.scenario_id,
        incident_id: typeof proposal.incident_id === 'string' ? proposal.incident_id : '',
        proposal,
        reason_codes: r.reason_codes,
        requested_at: r.requested_at,
        deadline: r.deadline,
        scope: r.scope,
      },
      proposal_hash: proposalHash,
      outcome: r.outcome,
      approver_id: r.approver_id,
      reason: r.reason,
    });
  }
  const runIds = await store.campaignRuns([...ids]);
  // The asking runs' chains, even if the note of their first write did not reach the store before a crash.
  for (const r of rows) if (r.campaign_id !== null && ids.has(r.campaign_id)) runIds.add(r.run_id);
  return { campaignIds: ids, runIds, requests };
}

/**
 * Campaigns as background jobs: a POST stores the request as `queued` and returns at once; up to `maxRunning`
 * campaigns run at a time (the rest wait in order); progress, results and failures are written to the database,
 * so a restarted server still lists them. A campaign interrupted by a restart is marked failed; queued ones run.
 */
export class CampaignService {
  private readonly queue: string[] = [];
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Who cancelled a running campaign (its failure is then recorded as a cancellation). */
  private readonly cancelledBy = new Map<string, string>();
  private readonly live = new Map<string, CampaignProgress>();
  /** Campaigns waiting for a person with no run in this process (after a restart, or being stopped): resumable. */
  private readonly suspended = new Set<string>();
  /** Campaigns to run as a resume (journal kept, chains replayed) when they leave the queue. */
  private readonly resuming = new Set<string>();
  /** The chains each running campaign wrote to in this process. */
  private readonly chains = new Map<string, Set<string>>();
  /** Each running campaign's store writes (progress, chain notes) still in flight. */
  private readonly writesOf = new Map<string, () => Promise<void>>();
  private readonly corpus: ScenarioCorpus;
  private closed = false;

  constructor(private readonly options: CampaignServiceOptions) {
    this.corpus = options.corpus ?? loadCorpus();
  }

  /**
   * On start: campaigns a previous process left running failed, except those waiting for a person (`resumable`):
   * they stay running, their requests are listed again and they resume when decided; queued ones are picked up again.
   */
  async recover(
    resumable: ResumableCampaigns = { campaignIds: new Set(), runIds: new Set(), requests: [] },
  ): Promise<void> {
    const now = new Date().toISOString();
    for (const id of resumable.campaignIds) this.suspended.add(id);
    // Restoring may settle requests whose deadline passed while the server was down: those campaigns resume now.
    this.options.inbox.restore(resumable.requests);
    for (const row of await this.options.store.campaignsWithStatus(['running'])) {
      if (resumable.campaignIds.has(row.campaign_id)) continue;
      await this.options.store.updateCampaign(row.campaign_id, {
        status: 'failed',
        finished_at: now,
        error: 'interrupted: the server stopped while the campaign was running',
      });
    }
    for (const row of await this.options.store.campaignsWithStatus(['queued'])) this.queue.push(row.campaign_id);
    this.pump();
  }

  /**
   * A request of a suspended campaign was decided (or lapsed): run the campaign again from its run folder's
   * journal; the run that waited is re-executed from its seeded scope and meets the persisted decision.
   */
  resume(campaignId: string): void {
    if (this.closed || !this.suspended.delete(campaignId)) return;
    this.resuming.add(campaignId);
    this.queue.unshift(campaignId);
    this.pump();
  }

  /** The chains of campaigns suspended while the server stops (they stay open for the restart). */
  async suspendedChains(): Promise<Set<string>> {
    const out = await this.options.store.campaignRuns([...this.suspended]);
    for (const id of this.suspended) for (const runId of this.chains.get(id) ?? []) out.add(runId);
    for (const e of await this.options.store.pendingApprovals()) {
      if (e.campaign_id !== null && this.suspended.has(e.campaign_id)) out.add(e.run_id);
    }
    return out;
  }

  /**
   * Check a request against the provider registry, the corpus and the approver rules, then queue it.
   * Throws `CampaignRequestError` (400) before anything runs.
   */
  async create(request: CampaignCreate, owner: string): Promise<CampaignView> {
    if (this.closed) throw new Error('the server is shutting down');
    this.check(request);
    const cap = this.options.maxQueued ?? Number.POSITIVE_INFINITY;
    if (this.queue.length >= cap) {
      throw new CampaignQueueFullError(
        `the campaign queue is full (${this.queue.length} waiting, at most ${cap}); try again later or cancel one`,
      );
    }
    const campaignId = randomUUID();
    const createdAt = new Date().toISOString();
    const stored = { ...request };
    if (stored.seed !== undefined && (await this.options.store.seedInUse(stored.seed))) {
      throw new CampaignRequestError(
        'seed',
        `seed ${stored.seed} is already used by a campaign of this server (seeded runs would share chains); choose another`,
      );
    }
    // A campaign that waits for people is seeded, so a restart can re-execute its waiting run exactly.
    if (stored.seed === undefined && request.approver === 'human') stored.seed = await this.freshSeed();
    let epochMs: number | null = null;
    if (stored.seed !== undefined) {
      try {
        epochMs = reportDate(this.options.env ?? process.env).getTime();
      } catch (error) {
        throw new CampaignRequestError('seed', errorMessage(error));
      }
    }
    await this.options.store.insertCampaign({
      campaign_id: campaignId,
      owner,
      request: stored,
      progress: EMPTY_PROGRESS,
      created_at: createdAt,
      epoch_ms: epochMs,
    });
    this.queue.push(campaignId);
    this.pump();
    return await this.stored(campaignId);
  }

  private async freshSeed(): Promise<number> {
    for (;;) {
      const seed = randomInt(0, 2 ** 31 - 1);
      if (!(await this.options.store.seedInUse(seed))) return seed;
    }
  }

  private check(request: CampaignCreate): void {
    const live = isLiveProvider(request.provider_id) && !this.options.providerFactory;
    if (isLiveProvider(request.provider_id)) {
      try {
        checkProviderSelection(soclabProviderRegistry({ env: this.options.env }), request.provider_id, request.model);
      } catch (error) {
        throw new CampaignRequestError('provider_id', safe(errorMessage(error)));
      }
    } else if (request.model !== undefined) {
      throw new CampaignRequestError(
        'model',
        "model applies to live providers; the mock's model comes from each scenario (leave it out)",
      );
    }
    try {
      selectScenarios(this.corpus, { live, scenarioIds: request.scenario_ids });
    } catch (error) {
      throw new CampaignRequestError('scenario_ids', errorMessage(error));
    }
    if (request.mode === 'baseline') {
      if (request.ablate) throw new CampaignRequestError('ablate', 'ablate applies to protected mode only');
      if (request.approver !== 'none') {
        throw new CampaignRequestError('approver', 'approvers apply to protected mode only (baseline asks no one)');
      }
    }
    if (request.approver === 'human' && this.options.queueUrl) {
      // A person's decision must reach the run that waits for it; on a Redis worker that run is in another process.
      throw new CampaignRequestError(
        'approver',
        "approver 'human' cannot run on Redis workers (this server has queue_url set): the approvals inbox cannot reach a run on a soclab worker; use a simulated approver (none, ideal, rubber_stamp, noisy:<p>) or a server without queue_url",
      );
    }
    if (request.approver !== 'human') {
      try {
        parseApproverMode(request.approver);
      } catch (error) {
        throw new CampaignRequestError('approver', errorMessage(error));
      }
    }
  }

  /** Live progress when the campaign runs in this process, else the stored one. */
  private progressOf(row: CampaignRow): CampaignProgress {
    const base = this.live.get(row.campaign_id) ?? {
      ...EMPTY_PROGRESS,
      ...(row.progress as Partial<CampaignProgress>),
    };
    return {
      ...base,
      waiting_for_approval:
        row.status === 'running' ? this.options.inbox.pending({ campaign_id: row.campaign_id }).length : 0,
    };
  }

  private view(row: CampaignRow): CampaignView {
    return {
      campaign_id: row.campaign_id,
      status: row.status,
      owner: row.owner,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
      request: row.request,
      progress: this.progressOf(row),
      error: row.error,
      summary: row.summary as CampaignSummaryRow | null,
    };
  }

  async get(campaignId: string): Promise<CampaignView | null> {
    const row = await this.options.store.getCampaign(campaignId);
    return row ? this.view(row) : null;
  }

  /** The view of a campaign this service has just written: its row missing is a store failure, named. */
  private async stored(campaignId: string): Promise<CampaignView> {
    const view = await this.get(campaignId);
    if (!view) throw new Error(`campaign ${campaignId} is missing from the store just after it was written`);
    return view;
  }

  async list(options: { limit: number; offset: number; status?: CampaignStatus }): Promise<CampaignView[]> {
    return (await this.options.store.listCampaigns(options)).map((r) => this.view(r));
  }

  /** The finished campaign's run (records, assessment, info), or null while it is not completed. */
  async result(campaignId: string): Promise<StoredCampaignRun | null> {
    return this.options.store.campaignResult<StoredCampaignRun>(campaignId);
  }

  /**
   * Cancel a queued campaign (it never starts) or a running one (its runs are aborted, the evidence they wrote is
   * kept and their chains closed with run.interrupted). Resolves with the campaign once it has settled.
   */
  async cancel(campaignId: string, by: string): Promise<CampaignView> {
    const row = await this.options.store.getCampaign(campaignId);
    if (!row) throw new CampaignStateError(null, `campaign ${campaignId} not found`);
    const now = () => new Date().toISOString();
    const error = `cancelled by ${by}`;
    const queued = this.queue.indexOf(campaignId);
    const job = this.running.get(campaignId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      await this.options.store.updateCampaign(campaignId, { status: 'cancelled', finished_at: now(), error });
    } else if (job) {
      this.cancelledBy.set(campaignId, by);
      job.controller.abort();
      // Runs waiting for a person would otherwise wait out their timeout.
      this.options.inbox.cancel({ campaign_id: campaignId }, `the campaign was cancelled by ${by}`);
      await job.done;
    } else if (this.suspended.delete(campaignId)) {
      // Waiting for a person since a restart: nothing runs; its requests are cancelled and its open chains closed.
      this.options.inbox.cancel({ campaign_id: campaignId }, `the campaign was cancelled by ${by}`);
      await this.options.approvalWrites?.();
      const mine = await this.options.store.campaignRuns([campaignId]);
      const open = new Set((await openRuns(this.options.evidence)).filter((id) => mine.has(id)));
      if (open.size > 0) await sealInterruptedRuns(this.options.evidence, error, open);
      await this.options.store.deleteTape(campaignId);
      await this.options.store.updateCampaign(campaignId, { status: 'cancelled', finished_at: now(), error });
    } else if (row.status === 'queued' || row.status === 'running') {
      // Not in this process's queue (should not happen after recover): record the cancellation all the same.
      await this.options.store.updateCampaign(campaignId, { status: 'cancelled', finished_at: now(), error });
    } else {
      throw new CampaignStateError(row.status, `campaign ${campaignId} is already ${row.status}`);
    }
    return await this.stored(campaignId);
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.options.maxRunning) {
      const id = this.queue.shift();
      if (id === undefined) break;
      const controller = new AbortController();
      const done = this.execute(id, controller.signal)
        .catch((error) => this.options.log?.(`campaign ${id}: ${safe(String(error))}`))
        .finally(() => {
          this.running.delete(id);
          this.live.delete(id);
          this.pump();
        });
      this.running.set(id, { controller, done });
    }
  }

  private async execute(campaignId: string, signal: AbortSignal): Promise<void> {
    const { store } = this.options;
    const row = await store.getCampaign(campaignId);
    const resume = this.resuming.delete(campaignId);
    if (row?.status !== (resume ? 'running' : 'queued')) return;
    const request = row.request as unknown as CampaignCreate;
    const runDir = join(this.options.dataDir, 'campaigns', campaignId);
    const progress: CampaignProgress = {
      ...EMPTY_PROGRESS,
      ...(resume ? (row.progress as Partial<CampaignProgress>) : {}),
    };
    this.live.set(campaignId, progress);
    if (!resume) {
      await store.updateCampaign(campaignId, {
        status: 'running',
        started_at: new Date().toISOString(),
        run_dir: runDir,
      });
    }
    let writes = Promise.resolve();
    const persist = () => {
      const snapshot = { ...progress };
      writes = writes.then(() => store.updateCampaign(campaignId, { progress: snapshot })).catch(() => undefined);
    };
    const human = request.approver === 'human';
    const runIds = new Set<string>();
    this.chains.set(campaignId, runIds);
    this.writesOf.set(campaignId, () => writes);
    // Each chain the campaign writes to is noted in the store, so a restart knows which open chains it may resume.
    const noteRun = (id: string) => {
      writes = writes.then(() => store.addCampaignRun(campaignId, id)).catch(() => undefined);
    };
    const approvalTimeout = request.approval_timeout_seconds ?? this.options.approvalTimeoutSeconds;
    // A live model answers differently when asked again: its answers are taped so a resume can replay them. Not an
    // MCP free-form agent: it calls the lab's tools itself during a turn, which a replayed answer would skip.
    const taping =
      human &&
      isLiveProvider(request.provider_id) &&
      request.provider_id !== MCP_PROVIDER_ID &&
      !this.options.providerFactory;
    let tape: TapeEntry[] | undefined;
    if (taping) {
      // A first run starts from an empty tape; a resume replays what was recorded before the restart.
      if (!resume) await store.deleteTape(campaignId);
      tape = resume ? await store.tapeOf(campaignId) : [];
    }
    const onTape = (entry: TapeEntry) => {
      writes = writes.then(() => store.putTapeEntry(campaignId, entry)).catch(() => undefined);
    };
    try {
      const campaignOptions = {
        mode: request.mode,
        provider: request.provider_id,
        model: request.model,
        level: request.authority_level,
        repeats: request.repeats,
        scenarios: request.scenario_ids,
        approver: request.approver,
        ablate: request.ablate,
        seed: request.seed,
        concurrency: this.options.concurrency,
        // A run waiting for a person must outlive the wait.
        timeout: human ? approvalTimeout + 300 : 300,
      };
      const inboxChannel = human
        ? this.options.inbox.channel({ campaign_id: campaignId, timeoutSeconds: approvalTimeout })
        : undefined;
      // A request is persisted only after the taped turns that led to it (a restart must find both).
      const approvalService: HumanApprovalChannel | undefined =
        inboxChannel && tape
          ? {
              approverFor: (context) => {
                const approver = inboxChannel.approverFor(context);
                return {
                  ...approver,
                  review: async (pending) => {
                    await writes;
                    return approver.review(pending);
                  },
                };
              },
            }
          : inboxChannel;
      const onProgress = (p: RunnerProgress) => {
        Object.assign(progress, {
          total: p.total,
          done: p.done,
          passed: p.passed,
          failed: p.failed,
          errors: p.errors,
          last_scenario: p.scenario_id,
        });
        if (p.attack_succeeded) progress.attack_successes += 1;
        persist();
      };
      const pool = this.options.providerFactory ? undefined : this.options.pool;
      const epochMs = row.epoch_ms ?? undefined;
      const job: CampaignJob | null = pool
        ? {
            campaign_id: campaignId,
            options: campaignOptions,
            run_dir: runDir,
            database_url: pool.databaseUrl,
            human,
            epoch_ms: epochMs,
            resume,
            queue: this.options.queueUrl,
            tape,
          }
        : null;
      const run: Omit<CampaignRun, 'scorecard'> =
        pool && job
          ? await pool.workers.run(job, {
              signal,
              approvalService,
              onRunId: (id) => {
                if (!runIds.has(id)) noteRun(id);
                runIds.add(id);
              },
              onTape,
              onRetry: async ({ runIds: abandoned, reason }) => {
                if (request.seed !== undefined) {
                  // Seeded: the new attempt continues this one (journal kept, chains replayed, the same requests
                  // waited on), since its run ids are the same; nothing is closed or asked twice.
                  job.resume = true;
                  // …and answers the turns the dead attempt taped from its tape.
                  if (taping) {
                    await writes;
                    job.tape = await store.tapeOf(campaignId);
                  }
                  return;
                }
                // The worker died: its attempt's chains are closed as interrupted and the campaign starts over.
                await sealInterruptedRuns(
                  this.options.evidence,
                  `${safe(reason)}; the campaign was started again on another worker`,
                  abandoned,
                );
                // Its requests waiting for a person belong to the dead attempt; the new one asks again.
                this.options.inbox.cancel(
                  { campaign_id: campaignId },
                  'the campaign worker stopped; the run starts again',
                );
                Object.assign(progress, { ...EMPTY_PROGRESS, total: progress.total });
                persist();
              },
              onStart: (total) => {
                progress.total = total;
                persist();
              },
              onProgress,
            })
          : withoutScorecard(
              await runCampaign(campaignOptions, {
                signal,
                runDir,
                epochMs,
                resume,
                evidence: resume
                  ? resumingStore(yieldingStore(this.options.evidence, runIds, noteRun))
                  : yieldingStore(this.options.evidence, runIds, noteRun),
                // Queued: the workers load their own corpus (the server refuses an injected one with queue_url).
                corpus: this.options.queueUrl ? undefined : this.corpus,
                queue: this.options.queueUrl,
                providerFactory: this.options.providerFactory,
                approvalService,
                tape: tape ? { entries: tape, env: this.options.env, record: onTape } : undefined,
                onStart: ({ total }) => {
                  progress.total = total;
                  persist();
                },
                onProgress,
              }),
            );
      await writes;
      if (signal.aborted || run.info.state === 'cancelled') throw new Error('aborted');
      // The scorecard is rebuilt on demand (with or without a baseline); the campaign is named by its API id, and
      // the harness experiment id stays in the run folder's journal.
      const stored: StoredCampaignRun = { ...run, info: { ...run.info, campaign_id: campaignId } };
      await store.updateCampaign(campaignId, {
        status: 'completed',
        finished_at: new Date().toISOString(),
        progress: { ...progress },
        summary: summaryOf(stored),
        result: stored,
      });
    } catch (error) {
      await writes;
      // Stopped while waiting for a person: it stays running (and pending) for the next start to resume.
      if (this.suspended.has(campaignId)) return;
      const cancelledBy = this.cancelledBy.get(campaignId);
      const message = cancelledBy
        ? `cancelled by ${cancelledBy}`
        : signal.aborted
          ? 'interrupted: the server stopped while the campaign was running'
          : safe(errorMessage(error));
      if (cancelledBy) {
        // The runs it stopped keep their events; each open chain says it was cancelled, not complete.
        await sealInterruptedRuns(this.options.evidence, message, runIds).catch((e) =>
          this.options.log?.(`campaign ${campaignId}: closing its chains: ${safe(String(e))}`),
        );
      }
      await store.updateCampaign(campaignId, {
        status: cancelledBy ? 'cancelled' : 'failed',
        finished_at: new Date().toISOString(),
        progress: { ...progress },
        error: message,
      });
    } finally {
      this.cancelledBy.delete(campaignId);
      if (!this.suspended.has(campaignId)) {
        // Its runs are over: their taped answers are no longer needed.
        if (taping) {
          await writes;
          await store
            .deleteTape(campaignId)
            .catch((e) => this.options.log?.(`campaign ${campaignId}: ${safe(String(e))}`));
        }
        if (resume) this.options.inbox.unreached(campaignId, 'the resumed run stopped before it reached the request');
        this.options.inbox.cancel({ campaign_id: campaignId }, 'the campaign ended');
        this.chains.delete(campaignId);
        this.writesOf.delete(campaignId);
      }
    }
  }

  /** Number of campaigns running in this process. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Stop taking work, abort running campaigns (they are marked failed) and wait for them to settle. A seeded
   * campaign whose runs wait for a person is suspended instead: its requests stay pending in the store, its chains
   * open, and the next start resumes it (its run in this process is abandoned where it waits).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    const stopping: Promise<void>[] = [];
    for (const [id, { controller, done }] of this.running) {
      const row = await this.options.store.getCampaign(id);
      const seeded = typeof row?.request.seed === 'number' && row.epoch_ms !== null;
      if (seeded && row?.request.approver === 'human' && this.options.inbox.pending({ campaign_id: id }).length > 0) {
        this.suspended.add(id);
        this.options.inbox.suspend(id);
        await this.writesOf.get(id)?.();
        continue;
      }
      controller.abort();
      stopping.push(done);
    }
    this.options.inbox.cancel({}, 'the server is shutting down');
    await Promise.all(stopping);
  }
}
