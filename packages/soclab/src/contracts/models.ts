import { z } from 'zod';
import {
  bounded,
  Identifier,
  JsonObject,
  NonEmpty,
  newUuid,
  Sha256Hex,
  Str,
  strictModel,
  TimestampNow,
  UtcTimestamp,
  Uuid,
} from './common.js';
import {
  ApprovalDecision,
  AuthorityLevel,
  DecisionOutcome,
  ExecutionStatus,
  FinishReason,
  InvestigationStatus,
  LeakEncoding,
  LeakSink,
  RiskTier,
  Stage,
  TrustLabel,
} from './enums.js';

// ---------------------------------------------------------------------------------------------------------------
// Evidence and proposals

/** A pointer to one piece of evidence issued during a run (`alert`, `get_identity_profile:1`, ...). */
export const EvidenceRef = strictModel({
  evidence_id: NonEmpty,
  source_tool: NonEmpty,
  incident_id: NonEmpty,
  trust: TrustLabel,
  content_hash: Sha256Hex,
  summary: bounded(500),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;
export type EvidenceRefInput = z.input<typeof EvidenceRef>;

/** What the model wants done. Untrusted until a policy decides. */
export const ActionProposal = z
  .strictObject({
    proposal_id: Uuid.default(newUuid),
    agent_id: NonEmpty,
    delegated_user_id: NonEmpty,
    incident_id: NonEmpty,
    tool_name: Identifier,
    arguments: JsonObject,
    evidence_refs: z.array(EvidenceRef).min(1, 'a proposal needs at least one evidence reference').readonly(),
    rationale: bounded(2000),
    provider: NonEmpty,
    model: NonEmpty,
    trace_id: NonEmpty,
    created_at: TimestampNow,
  })
  .superRefine((p, ctx) => {
    p.evidence_refs.forEach((ref, i) => {
      if (ref.incident_id !== p.incident_id) {
        ctx.addIssue({
          code: 'custom',
          path: ['evidence_refs', i, 'incident_id'],
          message: `evidence incident ${ref.incident_id} does not match proposal incident ${p.incident_id}`,
        });
      }
    });
  })
  .readonly();
export type ActionProposal = z.infer<typeof ActionProposal>;
export type ActionProposalInput = z.input<typeof ActionProposal>;

// ---------------------------------------------------------------------------------------------------------------
// Policy decisions and obligations

export const Obligation = strictModel({
  name: Identifier,
  parameters: JsonObject.default({}),
});
export type Obligation = z.infer<typeof Obligation>;

export const PolicyDecision = z
  .strictObject({
    proposal_id: Uuid,
    outcome: DecisionOutcome,
    reason_codes: z.array(NonEmpty).min(1, 'a decision needs at least one reason code').readonly(),
    obligations: z.array(Obligation).readonly().default([]),
    risk_tier: RiskTier,
    policy_version: NonEmpty,
    explanation: bounded(2000),
    decided_at: TimestampNow,
  })
  .superRefine((d, ctx) => {
    if (d.outcome === 'allow_with_obligations' && d.obligations.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['obligations'], message: 'allow_with_obligations requires an obligation' });
    }
    if ((d.outcome === 'allow' || d.outcome === 'deny') && d.obligations.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['obligations'], message: `${d.outcome} must not carry obligations` });
    }
  })
  .readonly();
export type PolicyDecision = z.infer<typeof PolicyDecision>;
export type PolicyDecisionInput = z.input<typeof PolicyDecision>;

/** `"<decision>: <codes joined by ', '>"`. */
export function decisionExplanation(outcome: DecisionOutcome, reasonCodes: readonly string[]): string {
  return `${outcome}: ${reasonCodes.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Approvals

export const ApprovalRecord = z
  .strictObject({
    approval_id: Uuid.default(newUuid),
    proposal_id: Uuid,
    approver_id: NonEmpty,
    decision: ApprovalDecision,
    reason: bounded(2000),
    decided_at: TimestampNow,
    expires_at: UtcTimestamp,
  })
  .superRefine((a, ctx) => {
    if (Date.parse(a.expires_at) <= Date.parse(a.decided_at)) {
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be after decided_at' });
    }
  })
  .readonly();
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** True iff the record approves and has not expired at `at`. */
export function approvalValidAt(record: ApprovalRecord, at: Date = new Date()): boolean {
  return record.decision === 'approved' && at.getTime() < Date.parse(record.expires_at);
}

export const PendingApproval = strictModel({
  approval_id: Uuid.default(newUuid),
  proposal: ActionProposal,
  requested_at: TimestampNow,
  reason_codes: z.array(NonEmpty).readonly().default([]),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

// ---------------------------------------------------------------------------------------------------------------
// Providers, usage and model turns

export const ProviderCapabilities = strictModel({
  tool_calling: z.boolean(),
  structured_output: z.boolean(),
  streaming: z.boolean(),
  usage_reporting: z.boolean(),
  multimodal_input: z.boolean().default(false),
});
export type ProviderCapabilities = z.infer<typeof ProviderCapabilities>;

export const CompatibilityResult = strictModel({
  provider_id: NonEmpty,
  adapter_version: NonEmpty,
  approved: z.boolean(),
  capabilities: ProviderCapabilities,
  region: Str.nullable().default(null),
  limitations: z.array(Str).readonly().default([]),
});
export type CompatibilityResult = z.infer<typeof CompatibilityResult>;

export const TokenUsage = strictModel({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  estimated: z.boolean(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** input + output tokens. */
export const totalTokens = (u: TokenUsage): number => u.input_tokens + u.output_tokens;

/** One normalized model turn. */
export const CanonicalModelEvent = z
  .strictObject({
    event_id: Uuid.default(newUuid),
    trace_id: NonEmpty,
    run_id: NonEmpty,
    incident_id: NonEmpty,
    agent_id: NonEmpty,
    delegated_user_id: NonEmpty,
    stage: Stage.optional(),
    provider: NonEmpty,
    model: NonEmpty,
    finish_reason: FinishReason,
    output_text: z.string().default(''),
    proposed_tool: Str.nullable().default(null),
    validated_arguments: JsonObject.nullable().default(null),
    evidence_refs: z.array(EvidenceRef).readonly().default([]),
    risk_tier: RiskTier.nullable().default(null),
    usage: TokenUsage,
    estimated_cost_usd: z.number().min(0).nullable().default(null),
    cost_is_estimated: z.boolean().default(true),
    latency_ms: z.number().min(0),
    policy_outcome: DecisionOutcome.nullable().default(null),
    /** Set when the turn failed (provider error, malformed reply); the run records it and takes no action. */
    error: Str.nullable().default(null),
    created_at: TimestampNow,
  })
  .superRefine((e, ctx) => {
    if (e.validated_arguments !== null && e.proposed_tool === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['validated_arguments'],
        message: 'validated_arguments requires proposed_tool',
      });
    }
  })
  .readonly();
export type CanonicalModelEvent = z.infer<typeof CanonicalModelEvent>;
export type CanonicalModelEventInput = z.input<typeof CanonicalModelEvent>;

// ---------------------------------------------------------------------------------------------------------------
// Port reply

/** The reply of the orchestrator's only tool interface, `port.propose(proposal)`. */
export const ProposalResult = strictModel({
  proposal_id: Uuid,
  /** Tool named by the proposal (so traces can be read without the proposal). */
  tool_name: Str.optional(),
  status: ExecutionStatus,
  outcome: DecisionOutcome.nullable().default(null),
  reason_codes: z.array(Str).readonly().default([]),
  output: JsonObject.nullable().default(null),
  receipt: JsonObject.nullable().default(null),
  error: Str.nullable().default(null),
  /** True iff a policy decision point evaluated the proposal (always false for the baseline port). */
  controlled: z.boolean().default(false),
});
export type ProposalResult = z.infer<typeof ProposalResult>;
export type ProposalResultInput = z.input<typeof ProposalResult>;

// ---------------------------------------------------------------------------------------------------------------
// Investigation

export const Claim = strictModel({
  text: Str,
  evidence_ids: z.array(Str).readonly(),
  supported: z.boolean(),
});
export type Claim = z.infer<typeof Claim>;

export const Finding = strictModel({
  summary: Str,
  claims: z.array(Claim).readonly(),
  techniques: z.array(Str).readonly(),
  confidence: z.number().min(0).max(1),
  evidence_refs: z.array(EvidenceRef).readonly(),
});
export type Finding = z.infer<typeof Finding>;

/** Claims flagged as not supported by evidence issued in this run. */
export const unsupportedClaims = (f: Finding): readonly Claim[] => f.claims.filter((c) => !c.supported);

export const InvestigationResult = strictModel({
  run_id: NonEmpty,
  trace_id: NonEmpty,
  incident_id: NonEmpty,
  status: InvestigationStatus,
  stages_completed: z.array(Stage).readonly(),
  evidence: z.array(EvidenceRef).readonly(),
  finding: Finding.nullable(),
  recommended_action: ActionProposal.nullable(),
  action_result: ProposalResult.nullable(),
  /** Every proposal sent to the port, in order, with its result. */
  proposals: z.array(z.strictObject({ proposal: ActionProposal, result: ProposalResult }).readonly()).readonly(),
  /** Results that carry a receipt (state changes). */
  executions: z.array(ProposalResult).readonly(),
  /** Results that carry an output (reads). */
  tool_outputs: z.array(ProposalResult).readonly(),
  events: z.array(CanonicalModelEvent).readonly(),
  failure_reason: Str.nullable(),
});
export type InvestigationResult = z.infer<typeof InvestigationResult>;

// ---------------------------------------------------------------------------------------------------------------
// Policy input

export const ToolRegistryEntry = strictModel({
  risk_tier: RiskTier,
  allowed_arguments: z.array(Str).readonly(),
});
export type ToolRegistryEntry = z.infer<typeof ToolRegistryEntry>;

export const LimitContext = strictModel({
  calls_made: z.number().int().min(0),
  max_calls: z.number().int().positive(),
  cost_used_usd: z.number().min(0),
  max_cost_usd: z.number().positive(),
  elapsed_seconds: z.number().min(0),
  max_elapsed_seconds: z.number().positive(),
});
export type LimitContext = z.infer<typeof LimitContext>;

export const ApprovalContext = strictModel({
  present: z.boolean().default(false),
  valid: z.boolean().default(false),
});
export type ApprovalContext = z.infer<typeof ApprovalContext>;

export const ProtectedAssets = strictModel({
  user_ids: z.array(Str).readonly().default([]),
  endpoint_ids: z.array(Str).readonly().default([]),
  indicators: z.array(Str).readonly().default([]),
});
export type ProtectedAssets = z.infer<typeof ProtectedAssets>;

export const ApprovedModel = z.tuple([NonEmpty, NonEmpty]).readonly();
export type ApprovedModel = z.infer<typeof ApprovedModel>;

export const AuthorizationContext = strictModel({
  incident_id: NonEmpty,
  authority_level: AuthorityLevel,
  approved_models: z.array(ApprovedModel).readonly(),
  tools: z.record(z.string(), ToolRegistryEntry).readonly(),
  limits: LimitContext,
  approval: ApprovalContext.default({ present: false, valid: false }),
  protected_assets: ProtectedAssets.default({ user_ids: [], endpoint_ids: [], indicators: [] }),
  degraded: z.boolean().default(false),
});
export type AuthorizationContext = z.infer<typeof AuthorizationContext>;

// ---------------------------------------------------------------------------------------------------------------
// Gateway

export const RunLimits = strictModel({
  max_calls: z.number().int().positive().default(40),
  max_cost_usd: z.number().positive().default(2.0),
  max_elapsed_seconds: z.number().positive().default(300),
});
export type RunLimits = z.infer<typeof RunLimits>;

export const DEFAULT_APPROVED_MODELS: readonly ApprovedModel[] = Object.freeze([
  Object.freeze(['mock', 'mock-investigator-v1'] as const),
]);

export const GatewayConfig = strictModel({
  incident_id: NonEmpty,
  authority_level: AuthorityLevel.default('L4'),
  approved_models: z
    .array(ApprovedModel)
    .readonly()
    .default([['mock', 'mock-investigator-v1']]),
  limits: RunLimits.default({ max_calls: 40, max_cost_usd: 2.0, max_elapsed_seconds: 300 }),
  degraded_read_only: z.boolean().default(false),
  canary_patterns: z.array(NonEmpty).readonly().default(['CANARY-SECRET-*']),
  protected_assets: ProtectedAssets.default({ user_ids: [], endpoint_ids: [], indicators: [] }),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
export type GatewayConfigInput = z.input<typeof GatewayConfig>;

/**
 * One step the gateway took for a proposal. Known kinds are listed in `GatewayEventKind`; the field accepts any
 * identifier so new control steps can be recorded without a contract change.
 */
export const GatewayEvent = strictModel({
  event_id: Uuid.default(newUuid),
  proposal_id: Uuid,
  kind: Identifier,
  at: TimestampNow,
  detail: JsonObject.default({}),
});
export type GatewayEvent = z.infer<typeof GatewayEvent>;
export type GatewayEventInput = z.input<typeof GatewayEvent>;

// ---------------------------------------------------------------------------------------------------------------
// Grants

/**
 * A signed, single-use, short-lived permission to execute exactly one proposal. `signature` is an HMAC-SHA256 (hex)
 * over the RFC 8785 canonical JSON of every other field; `proposal_hash` binds the proposal's id, incident, tool,
 * arguments, agent and delegated user.
 */
export const ExecutionGrant = z
  .strictObject({
    grant_id: Uuid.default(newUuid),
    proposal_id: Uuid,
    proposal_hash: Sha256Hex,
    run_id: NonEmpty,
    incident_id: NonEmpty,
    tool_name: Identifier,
    policy_version: NonEmpty,
    approval_id: Uuid.nullable().default(null),
    obligations_fulfilled: z.array(Identifier).readonly().default([]),
    /** Random single-use value; the executor refuses a nonce it has already honoured. */
    nonce: NonEmpty,
    issued_at: UtcTimestamp,
    expires_at: UtcTimestamp,
    signature: Sha256Hex,
  })
  .superRefine((g, ctx) => {
    if (Date.parse(g.expires_at) <= Date.parse(g.issued_at)) {
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be after issued_at' });
    }
  })
  .readonly();
export type ExecutionGrant = z.infer<typeof ExecutionGrant>;
export type ExecutionGrantInput = z.input<typeof ExecutionGrant>;

// ---------------------------------------------------------------------------------------------------------------
// Leak reports

/** One place a canary secret was found. Never carries the secret itself. */
export const LeakFinding = strictModel({
  sink: LeakSink,
  encoding: LeakEncoding,
  /** Which canary (its index in the run's canary list or the pattern), never the value. */
  canary: NonEmpty,
  /** JSON path inside the inspected value, e.g. `claims.1.text`. */
  path: Str,
  /** Sequence or label of the inspected record (e.g. `model.turn#3`), when known. */
  where: Str.nullable().default(null),
});
export type LeakFinding = z.infer<typeof LeakFinding>;
