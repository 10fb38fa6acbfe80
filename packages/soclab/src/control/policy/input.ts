import { z } from 'zod';
import { AuthorityLevel, RiskTier } from '../../contracts/enums.js';
import { ApprovalContext, ApprovedModel, LimitContext } from '../../contracts/policy-input.js';

/**
 * The policy input document: the proposal (as facts the gateway copied from it) and the authorization context the
 * gateway built from configuration and the approval service. Unlike the gateway's `AuthorizationContext`, the
 * protected-asset lists are optional here so that a missing declaration can be expressed (and denied).
 */
export const PolicyProposal = z.strictObject({
  agent_id: z.string().min(1),
  delegated_user_id: z.string().min(1),
  incident_id: z.string().min(1),
  tool_name: z.string().min(1),
  /** Verbatim; the engine derives facts from it and never passes values through unchecked. */
  arguments: z.record(z.string(), z.unknown()),
  evidence_count: z.number().int().min(0),
  provider: z.string().min(1),
  model: z.string().min(1),
});
export type PolicyProposal = z.infer<typeof PolicyProposal>;

export const PolicyToolEntry = z.strictObject({
  risk_tier: RiskTier,
  allowed_arguments: z.array(z.string()),
});

export const DeclaredProtectedAssets = z.strictObject({
  user_ids: z.array(z.string()).optional(),
  endpoint_ids: z.array(z.string()).optional(),
  indicators: z.array(z.string()).optional(),
});
export type DeclaredProtectedAssets = z.infer<typeof DeclaredProtectedAssets>;

export const PolicyContext = z.strictObject({
  incident_id: z.string().min(1),
  authority_level: AuthorityLevel,
  approved_models: z.array(ApprovedModel),
  tools: z.record(z.string(), PolicyToolEntry),
  limits: LimitContext,
  approval: ApprovalContext.default({ present: false, valid: false }),
  protected_assets: DeclaredProtectedAssets,
  degraded: z.boolean().default(false),
});
export type PolicyContext = z.infer<typeof PolicyContext>;

export const PolicyInput = z.strictObject({ proposal: PolicyProposal, context: PolicyContext });
export type PolicyInput = z.infer<typeof PolicyInput>;
export type PolicyInputData = z.input<typeof PolicyInput>;
