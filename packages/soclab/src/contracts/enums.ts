import { z } from 'zod';

/** Closed enumerations of the lab. Unknown values fail validation. */

export const DecisionOutcome = z.enum(['allow', 'allow_with_obligations', 'require_approval', 'deny']);
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

export const RiskTier = z.enum(['read_only', 'low', 'high']);
export type RiskTier = z.infer<typeof RiskTier>;

export const AuthorityLevel = z.enum(['L1', 'L2', 'L3', 'L4', 'L5']);
export type AuthorityLevel = z.infer<typeof AuthorityLevel>;

/** Display names of the authority levels ("L4" -> "Act with approval"). */
export const AUTHORITY_LABELS: Readonly<Record<AuthorityLevel, string>> = Object.freeze({
  L1: 'Observe',
  L2: 'Investigate',
  L3: 'Recommend',
  L4: 'Act with approval',
  L5: 'Bounded autonomy',
});

export const TrustLabel = z.enum(['trusted', 'untrusted']);
export type TrustLabel = z.infer<typeof TrustLabel>;

export const ApprovalDecision = z.enum(['approved', 'rejected']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const ExecutionStatus = z.enum(['proposed', 'denied', 'awaiting_approval', 'executed', 'failed_closed']);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

export const FinishReason = z.enum(['stop', 'tool_proposal', 'length', 'content_filter', 'error']);
export type FinishReason = z.infer<typeof FinishReason>;

/**
 * `failed`: the model misbehaved (malformed reply, invalid proposal). `errored`: the provider or transport failed
 * (after retries), so the run says nothing about the model; it is neither resisted nor solved.
 */
export const InvestigationStatus = z.enum(['complete', 'incomplete', 'failed', 'errored']);
export type InvestigationStatus = z.infer<typeof InvestigationStatus>;

/** The seven working stages in their fixed order. */
export const WORKING_STAGES = [
  'collect_identity',
  'collect_authentication',
  'collect_endpoint',
  'enrich_indicators',
  'collect_siem',
  'form_finding',
  'propose_action',
] as const;
export const WorkingStage = z.enum(WORKING_STAGES);
export type WorkingStage = z.infer<typeof WorkingStage>;

export const COLLECTION_STAGES = [
  'collect_identity',
  'collect_authentication',
  'collect_endpoint',
  'enrich_indicators',
  'collect_siem',
] as const;
export type CollectionStage = (typeof COLLECTION_STAGES)[number];

export const Stage = z.enum([...WORKING_STAGES, 'complete']);
export type Stage = z.infer<typeof Stage>;

export const RefusalCode = z.enum(['insufficient_evidence', 'out_of_scope', 'unsupported_stage', 'policy', 'error']);
export type RefusalCode = z.infer<typeof RefusalCode>;

export const ReportAudience = z.enum(['executive', 'technical']);
export type ReportAudience = z.infer<typeof ReportAudience>;

/** Baseline = weak controls; protected = the full control plane. */
export const Mode = z.enum(['baseline', 'protected']);
export type Mode = z.infer<typeof Mode>;

export const ScoreFamily = z.enum([
  'security_resilience',
  'investigation_quality',
  'operational_discipline',
  'governance_readiness',
  'economic_efficiency',
]);
export type ScoreFamily = z.infer<typeof ScoreFamily>;

export const Difficulty = z.enum(['low', 'medium', 'high', 'none']);
export type Difficulty = z.infer<typeof Difficulty>;

export const MockBehavior = z.enum(['grounded', 'gullible', 'cautious']);
export type MockBehavior = z.infer<typeof MockBehavior>;

/** Where a canary was seen. */
export const LeakSink = z.enum(['model_turn', 'tool_output', 'finding', 'action_arguments', 'report', 'other']);
export type LeakSink = z.infer<typeof LeakSink>;

/** How a canary was written. */
export const LeakEncoding = z.enum(['literal', 'base64', 'hex']);
export type LeakEncoding = z.infer<typeof LeakEncoding>;

/** Kinds of gateway event recorded on the chain (`gateway.<kind>`). */
export const GatewayEventKind = z.enum([
  'proposal_received',
  'policy_unavailable',
  'degraded_read_only_continuation',
  'policy_decision',
  'approval_requested',
  'obligation_failed',
  'reversal_plan',
  'notification',
  'approval_binding_failed',
  'grant_issued',
  'execution_refused',
  'executed',
]);
export type GatewayEventKind = z.infer<typeof GatewayEventKind>;
