import type { Kysely } from 'kysely';
import type { EvidenceDatabase } from '../evidence/database.js';
import type { SqlEvidenceStore } from '../evidence/store.js';
import type { TapeEntry } from '../providers/resume-tape.js';

/**
 * The API's own tables, next to the evidence chain in the same database (SQLite file or PostgreSQL): campaigns
 * with their status, progress and results, and the human approvals inbox's history. JSON is stored as text so the
 * same queries run on both dialects.
 */

export const CAMPAIGN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const APPROVAL_OUTCOMES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'interrupted',
  // The resumed run reached another proposal than the one persisted (or the row was edited): decision not applied.
  'resume_mismatch',
] as const;
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number];

type CampaignsTable = {
  campaign_id: string;
  status: string;
  owner: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  request: string;
  progress: string;
  error: string | null;
  summary: string | null;
  result: string | null;
  run_dir: string | null;
  /** Reproducible clock start (ms) of a seeded campaign, so a resumed one reads the same clock. */
  epoch_ms: string | null;
};

type ApprovalsTable = {
  approval_id: string;
  campaign_id: string | null;
  run_id: string;
  scenario_id: string;
  proposal_id: string;
  tool_name: string;
  arguments: string;
  reason_codes: string;
  requested_at: string;
  deadline: string;
  outcome: string;
  approver_id: string | null;
  reason: string | null;
  decided_at: string | null;
  /** The proposal as the approver saw it (canary-redacted JSON); null for rows written before resumable approvals. */
  proposal: string | null;
  /** `proposalHash` of the exact (unredacted) proposal the run asked about. */
  proposal_hash: string | null;
  /** The seeded scope of the run (label/scenario/repeat/attempt) that asked. */
  scope: string | null;
  /** The run's chain head when the request was persisted (`<sequence>:<event_hash>`). */
  chain_head: string | null;
};

/** The chains each campaign wrote to, so a restart knows which open chains belong to a campaign it resumes. */
type CampaignRunsTable = {
  campaign_id: string;
  run_id: string;
};

/** The resume tape of campaigns waiting for people (providers/resume-tape.ts): canary-redacted live answers. */
type ResumeTapeTable = {
  campaign_id: string;
  scope: string;
  turn: number;
  request_hash: string;
  response: string | null;
};

type ApiTables = {
  api_campaigns: CampaignsTable;
  api_approvals: ApprovalsTable;
  api_campaign_runs: CampaignRunsTable;
  api_resume_tape: ResumeTapeTable;
};

type ApiDb = Kysely<EvidenceDatabase & ApiTables>;

export interface CampaignRow {
  campaign_id: string;
  status: CampaignStatus;
  owner: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  request: Record<string, unknown>;
  progress: Record<string, unknown>;
  error: string | null;
  summary: Record<string, unknown> | null;
  run_dir: string | null;
  epoch_ms: number | null;
}

export interface ApprovalRow {
  approval_id: string;
  campaign_id: string | null;
  run_id: string;
  scenario_id: string;
  proposal_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  reason_codes: string[];
  requested_at: string;
  deadline: string;
  outcome: ApprovalOutcome;
  approver_id: string | null;
  reason: string | null;
  decided_at: string | null;
  proposal: Record<string, unknown> | null;
  proposal_hash: string | null;
  scope: string | null;
  chain_head: string | null;
}

const json = (value: unknown): string => JSON.stringify(value);
const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toCampaign(r: CampaignsTable): CampaignRow {
  return {
    campaign_id: r.campaign_id,
    status: r.status as CampaignStatus,
    owner: r.owner,
    created_at: r.created_at,
    updated_at: r.updated_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    request: parse<Record<string, unknown>>(r.request) ?? {},
    progress: parse<Record<string, unknown>>(r.progress) ?? {},
    error: r.error,
    summary: parse<Record<string, unknown>>(r.summary),
    run_dir: r.run_dir,
    epoch_ms: r.epoch_ms === null ? null : Number(r.epoch_ms),
  };
}

function toApproval(r: ApprovalsTable): ApprovalRow {
  return {
    ...r,
    outcome: r.outcome as ApprovalOutcome,
    arguments: parse<Record<string, unknown>>(r.arguments) ?? {},
    reason_codes: parse<string[]>(r.reason_codes) ?? [],
    proposal: parse<Record<string, unknown>>(r.proposal),
  };
}

const CAMPAIGN_LIST_COLUMNS = [
  'campaign_id',
  'status',
  'owner',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'request',
  'progress',
  'error',
  'summary',
  'run_dir',
  'epoch_ms',
] as const;

export class ApiStore {
  private readonly db: ApiDb;

  private constructor(readonly evidence: SqlEvidenceStore) {
    this.db = evidence.db.withTables<ApiTables>();
  }

  /** Open the API tables in the evidence store's database (created when missing). */
  static async open(evidence: SqlEvidenceStore): Promise<ApiStore> {
    const store = new ApiStore(evidence);
    await store.migrate();
    return store;
  }

  private async migrate(): Promise<void> {
    await this.db.schema
      .createTable('api_campaigns')
      .ifNotExists()
      .addColumn('campaign_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('owner', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('started_at', 'varchar(40)')
      .addColumn('finished_at', 'varchar(40)')
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('progress', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('summary', 'text')
      .addColumn('result', 'text')
      .addColumn('run_dir', 'text')
      .execute();
    await this.db.schema
      .createIndex('api_campaigns_created')
      .ifNotExists()
      .on('api_campaigns')
      .column('created_at')
      .execute();
    await this.db.schema
      .createTable('api_approvals')
      .ifNotExists()
      .addColumn('approval_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('campaign_id', 'varchar(64)')
      .addColumn('run_id', 'varchar(128)', (c) => c.notNull())
      .addColumn('scenario_id', 'varchar(32)', (c) => c.notNull())
      .addColumn('proposal_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('tool_name', 'varchar(120)', (c) => c.notNull())
      .addColumn('arguments', 'text', (c) => c.notNull())
      .addColumn('reason_codes', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'varchar(40)', (c) => c.notNull())
      .addColumn('deadline', 'varchar(40)', (c) => c.notNull())
      .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
      .addColumn('approver_id', 'varchar(64)')
      .addColumn('reason', 'text')
      .addColumn('decided_at', 'varchar(40)')
      .execute();
    await this.db.schema
      .createTable('api_campaign_runs')
      .ifNotExists()
      .addColumn('campaign_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('run_id', 'varchar(128)', (c) => c.notNull())
      .addPrimaryKeyConstraint('api_campaign_runs_pk', ['campaign_id', 'run_id'])
      .execute();
    await this.db.schema
      .createTable('api_resume_tape')
      .ifNotExists()
      .addColumn('campaign_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('scope', 'varchar(300)', (c) => c.notNull())
      .addColumn('turn', 'integer', (c) => c.notNull())
      .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('response', 'text')
      .addPrimaryKeyConstraint('api_resume_tape_pk', ['campaign_id', 'scope', 'turn'])
      .execute();
    // Columns added after the first release: the same statements on SQLite and PostgreSQL, each only when missing.
    await this.addMissingColumns('api_campaigns', [['epoch_ms', 'varchar(20)']]);
    await this.addMissingColumns('api_approvals', [
      ['proposal', 'text'],
      ['proposal_hash', 'varchar(64)'],
      ['scope', 'text'],
      ['chain_head', 'varchar(100)'],
    ]);
  }

  private async addMissingColumns(
    table: 'api_campaigns' | 'api_approvals',
    columns: readonly (readonly [string, 'text' | `varchar(${number})`])[],
  ): Promise<void> {
    const tables = await this.db.introspection.getTables();
    const have = new Set(tables.find((t) => t.name === table)?.columns.map((c) => c.name) ?? []);
    for (const [name, type] of columns) {
      if (!have.has(name)) await this.db.schema.alterTable(table).addColumn(name, type).execute();
    }
  }

  // --- campaigns ---

  async insertCampaign(row: {
    campaign_id: string;
    owner: string;
    request: Record<string, unknown>;
    progress: Record<string, unknown>;
    created_at: string;
    epoch_ms?: number | null;
  }): Promise<void> {
    await this.db
      .insertInto('api_campaigns')
      .values({
        campaign_id: row.campaign_id,
        status: 'queued',
        owner: row.owner,
        created_at: row.created_at,
        updated_at: row.created_at,
        started_at: null,
        finished_at: null,
        request: json(row.request),
        progress: json(row.progress),
        error: null,
        summary: null,
        result: null,
        run_dir: null,
        epoch_ms: row.epoch_ms === undefined || row.epoch_ms === null ? null : String(row.epoch_ms),
      })
      .execute();
  }

  async updateCampaign(
    campaignId: string,
    patch: Partial<{
      status: CampaignStatus;
      started_at: string | null;
      finished_at: string | null;
      progress: Record<string, unknown>;
      error: string | null;
      summary: Record<string, unknown> | null;
      result: unknown;
      run_dir: string | null;
    }>,
  ): Promise<void> {
    const values: Partial<CampaignsTable> = { updated_at: new Date().toISOString() };
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.started_at !== undefined) values.started_at = patch.started_at;
    if (patch.finished_at !== undefined) values.finished_at = patch.finished_at;
    if (patch.progress !== undefined) values.progress = json(patch.progress);
    if (patch.error !== undefined) values.error = patch.error;
    if (patch.summary !== undefined) values.summary = patch.summary === null ? null : json(patch.summary);
    if (patch.result !== undefined) values.result = patch.result === null ? null : json(patch.result);
    if (patch.run_dir !== undefined) values.run_dir = patch.run_dir;
    await this.db.updateTable('api_campaigns').set(values).where('campaign_id', '=', campaignId).execute();
  }

  async getCampaign(campaignId: string): Promise<CampaignRow | null> {
    const row = await this.db
      .selectFrom('api_campaigns')
      .select(CAMPAIGN_LIST_COLUMNS)
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row ? toCampaign({ ...row, result: null }) : null;
  }

  /** The stored result (the campaign run: info, corpus, records, assessment), or null. */
  async campaignResult<T>(campaignId: string): Promise<T | null> {
    const row = await this.db
      .selectFrom('api_campaigns')
      .select('result')
      .where('campaign_id', '=', campaignId)
      .executeTakeFirst();
    return row ? parse<T>(row.result) : null;
  }

  /** Campaigns, newest first. */
  async listCampaigns(options: { limit: number; offset: number; status?: CampaignStatus }): Promise<CampaignRow[]> {
    let q = this.db.selectFrom('api_campaigns').select(CAMPAIGN_LIST_COLUMNS);
    if (options.status) q = q.where('status', '=', options.status);
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('campaign_id', 'desc')
      .limit(options.limit)
      .offset(options.offset)
      .execute();
    return rows.map((r) => toCampaign({ ...r, result: null }));
  }

  async campaignsWithStatus(statuses: readonly CampaignStatus[]): Promise<CampaignRow[]> {
    const rows = await this.db
      .selectFrom('api_campaigns')
      .select(CAMPAIGN_LIST_COLUMNS)
      .where('status', 'in', [...statuses])
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => toCampaign({ ...r, result: null }));
  }

  // --- approvals ---

  async insertApproval(row: ApprovalRow): Promise<void> {
    await this.db
      .insertInto('api_approvals')
      .values({
        ...row,
        arguments: json(row.arguments),
        reason_codes: json(row.reason_codes),
        proposal: row.proposal === null ? null : json(row.proposal),
      })
      .execute();
  }

  /** Requests of some campaigns (any outcome), oldest first: what a resumed campaign's runs asked so far. */
  async approvalsOf(campaignIds: readonly string[]): Promise<ApprovalRow[]> {
    if (campaignIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('api_approvals')
      .selectAll()
      .where('campaign_id', 'in', [...campaignIds])
      .orderBy('requested_at', 'asc')
      .orderBy('approval_id', 'asc')
      .execute();
    return rows.map(toApproval);
  }

  /** Note that a campaign wrote to a chain (idempotent). */
  async addCampaignRun(campaignId: string, runId: string): Promise<void> {
    await this.db
      .insertInto('api_campaign_runs')
      .values({ campaign_id: campaignId, run_id: runId })
      .onConflict((oc) => oc.columns(['campaign_id', 'run_id']).doNothing())
      .execute();
  }

  // --- resume tape ---

  /** Record one answered turn of a campaign's run (a turn recorded again replaces the earlier one). */
  async putTapeEntry(campaignId: string, entry: TapeEntry): Promise<void> {
    const row = { campaign_id: campaignId, ...entry };
    await this.db
      .insertInto('api_resume_tape')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['campaign_id', 'scope', 'turn'])
          .doUpdateSet({ request_hash: entry.request_hash, response: entry.response }),
      )
      .execute();
  }

  /** A campaign's taped turns, in order. */
  async tapeOf(campaignId: string): Promise<TapeEntry[]> {
    const rows = await this.db
      .selectFrom('api_resume_tape')
      .select(['scope', 'turn', 'request_hash', 'response'])
      .where('campaign_id', '=', campaignId)
      .orderBy('scope', 'asc')
      .orderBy('turn', 'asc')
      .execute();
    return rows.map((r) => ({ ...r, turn: Number(r.turn) }));
  }

  /** Forget a campaign's tape (its runs finished, or it was cancelled). */
  async deleteTape(campaignId: string): Promise<void> {
    await this.db.deleteFrom('api_resume_tape').where('campaign_id', '=', campaignId).execute();
  }

  /** The chains some campaigns wrote to. */
  async campaignRuns(campaignIds: readonly string[]): Promise<Set<string>> {
    if (campaignIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('api_campaign_runs')
      .select('run_id')
      .where('campaign_id', 'in', [...campaignIds])
      .execute();
    return new Set(rows.map((r) => r.run_id));
  }

  /** Whether a campaign of this server already used a seed (seeded run ids would collide in the shared store). */
  async seedInUse(seed: number): Promise<boolean> {
    const rows = await this.db.selectFrom('api_campaigns').select('request').execute();
    return rows.some((r) => parse<{ seed?: unknown }>(r.request)?.seed === seed);
  }

  async settleApproval(
    approvalId: string,
    patch: { outcome: ApprovalOutcome; approver_id: string | null; reason: string | null; decided_at: string },
  ): Promise<void> {
    // Decided once: a row already settled (by this or another server process) keeps its first outcome.
    await this.db
      .updateTable('api_approvals')
      .set(patch)
      .where('approval_id', '=', approvalId)
      .where('outcome', '=', 'pending')
      .execute();
  }

  /** The resumed run reached another proposal than the persisted one: the decision was not applied. */
  async markResumeMismatch(approvalId: string, detail: string): Promise<void> {
    await this.db
      .updateTable('api_approvals')
      .set({ outcome: 'resume_mismatch', reason: detail, decided_at: new Date().toISOString() })
      .where('approval_id', '=', approvalId)
      .execute();
  }

  async getApproval(approvalId: string): Promise<ApprovalRow | null> {
    const row = await this.db
      .selectFrom('api_approvals')
      .selectAll()
      .where('approval_id', '=', approvalId)
      .executeTakeFirst();
    return row ? toApproval(row) : null;
  }

  /** Settled approvals, newest decision first. */
  async approvalHistory(options: { limit: number; offset: number; campaign_id?: string }): Promise<ApprovalRow[]> {
    let q = this.db.selectFrom('api_approvals').selectAll().where('outcome', '!=', 'pending');
    if (options.campaign_id) q = q.where('campaign_id', '=', options.campaign_id);
    const rows = await q
      .orderBy('decided_at', 'desc')
      .orderBy('approval_id', 'asc')
      .limit(options.limit)
      .offset(options.offset)
      .execute();
    return rows.map(toApproval);
  }

  /** Requests still waiting for a decision, oldest first. */
  async pendingApprovals(): Promise<ApprovalRow[]> {
    const rows = await this.db
      .selectFrom('api_approvals')
      .selectAll()
      .where('outcome', '=', 'pending')
      .orderBy('requested_at', 'asc')
      .orderBy('approval_id', 'asc')
      .execute();
    return rows.map(toApproval);
  }

  /**
   * Requests left pending by a previous server process whose run cannot resume (all but those of the campaigns in
   * `keep`): their runs are gone.
   */
  async interruptPendingApprovals(at: string, keep: readonly string[] = []): Promise<number> {
    let q = this.db
      .updateTable('api_approvals')
      .set({ outcome: 'interrupted', decided_at: at, reason: 'the server stopped while the run was waiting' })
      .where('outcome', '=', 'pending');
    if (keep.length > 0) {
      q = q.where((eb) => eb.or([eb('campaign_id', 'is', null), eb('campaign_id', 'not in', [...keep])]));
    }
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
