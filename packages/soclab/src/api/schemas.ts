import { z } from 'zod';
import { ApprovalDecision, AuthorityLevel, Mode } from '../contracts/enums.js';
import { ABLATABLE_CONTROLS } from '../control/ablation-switches.js';

/**
 * Request and response shapes of the HTTP API (`/api/v1`). Requests are validated strictly (unknown fields are
 * errors); the OpenAPI document at `/api/openapi.json` is generated from these schemas.
 */

export const ScenarioId = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^(ATK|BEN)-\d{3}$/, 'must look like ATK-001 or BEN-001');

export const ApproverChoice = z
  .string()
  .trim()
  .regex(
    /^(none|ideal|rubber_stamp|human|noisy:(0(\.\d+)?|1(\.0+)?))$/,
    'must be none, ideal, rubber_stamp, human or noisy:<p> with p in [0, 1]',
  );

export const CampaignCreate = z
  .strictObject({
    mode: Mode.default('protected'),
    /** Registered provider id (default the scripted adversary `mock`). */
    provider_id: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9_]*$/, 'must match ^[a-z][a-z0-9_]*$')
      .max(64)
      .default('mock'),
    /** Model label for live providers (the mock takes each scenario's own model). */
    model: z.string().trim().min(1).max(200).optional(),
    authority_level: AuthorityLevel.default('L4'),
    /** Scenarios to run (default: every scenario the provider can run). */
    scenario_ids: z.array(ScenarioId).min(1).max(200).optional(),
    repeats: z.number().int().min(1).max(10).default(1),
    /** Who answers approval requests in protected mode; `human` waits for a decision in the approvals inbox. */
    approver: ApproverChoice.default('none'),
    /** Protected mode without one control (ablation study). */
    ablate: z.enum(ABLATABLE_CONTROLS).optional(),
    /** Seconds a run waits for a human decision (default: the server's setting). */
    approval_timeout_seconds: z.number().int().min(1).max(86_400).optional(),
    /**
     * Reproducible mode (as `soclab campaign --seed`): ids, times and grant keys derive from it, so the campaign can
     * be re-executed exactly. A campaign with approver `human` gets one when none is given (a restart resumes its
     * waiting runs from it); a seed is used by one campaign per server.
     */
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
    /** Free text shown in the console (untrusted; rendered as text). */
    note: z.string().max(500).optional(),
  })
  .describe('A campaign to start');
export type CampaignCreate = z.infer<typeof CampaignCreate>;

export const ApprovalDecisionBody = z.strictObject({
  decision: ApprovalDecision,
  reason: z.string().trim().min(1).max(2000),
  /** Optional; when given it must be the caller's own identity (the token's name). */
  approver_id: z.string().trim().min(1).max(64).optional(),
});
export type ApprovalDecisionBody = z.infer<typeof ApprovalDecisionBody>;

export const Uuid = z.uuid({ message: 'must be a UUID' });
export const IdParams = z.strictObject({ id: Uuid });
export const ApprovalParams = z.strictObject({ approval_id: Uuid });
export const RunParams = z.strictObject({
  run_id: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'must be a run id'),
});
export const IncidentParams = z.strictObject({
  incident_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be an incident id'),
});
export const ScenarioParams = z.strictObject({ scenario_id: ScenarioId });

export const Page = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const ReportAudienceParam = z.enum(['executive', 'technical']);
export const ReportParams = z.strictObject({ id: Uuid, audience: ReportAudienceParam });
export const ReportQuery = z.strictObject({ baseline: Uuid.optional() });

/** Every error body: a stable code, a message a person can act on, and the field paths at fault. */
export const ErrorBody = z
  .object({
    statusCode: z.number().int(),
    code: z.string(),
    error: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  // A named component (`#/components/schemas/Error`) that every error response of the document refers to.
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const CampaignProgress = z.object({
  total: z.number().int(),
  done: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errors: z.number().int(),
  attack_successes: z.number().int(),
  last_scenario: z.string().nullable(),
  waiting_for_approval: z.number().int(),
});
export type CampaignProgress = z.infer<typeof CampaignProgress>;

export const CampaignStatusEnum = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

/** The comparison row of a finished campaign (null while it runs). */
export const CampaignSummaryRow = z.object({
  label: z.string(),
  provider: z.string(),
  model: z.string(),
  composite: z.number(),
  attack_success: z.object({
    numerator: z.number(),
    denominator: z.number(),
    value: z.number(),
    ci95: z.tuple([z.number(), z.number()]),
  }),
  false_block: z.object({ numerator: z.number(), denominator: z.number(), value: z.number() }),
  gate_failures: z.array(z.string()),
  recommended_level: z.string(),
  level_label: z.string(),
  binding_rule: z.string(),
  critical_failures: z.number().int(),
  runs: z.number().int(),
  chains_valid: z.boolean(),
  policy_version: z.string(),
  errors: z.number().int(),
  /** Scoring profile 2.0.0+: `12 of 14 runs errored (...)` when runs errored or failed, else null. */
  errored_headline: z.string().nullable().optional(),
  /** Runs in which the agent itself attempted harm (intrinsic ledger), whether or not a control stopped it. */
  attempted_harm_runs: z.number().int().optional(),
});
export type CampaignSummaryRow = z.infer<typeof CampaignSummaryRow>;

export const CampaignView = z.object({
  campaign_id: z.string(),
  status: CampaignStatusEnum,
  owner: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  request: z.record(z.string(), z.unknown()),
  progress: CampaignProgress,
  error: z.string().nullable(),
  summary: CampaignSummaryRow.nullable(),
});
export type CampaignView = z.infer<typeof CampaignView>;
