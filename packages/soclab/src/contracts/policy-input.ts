/** What the policy engine is asked about: tool entries, limits, approvals, protected assets, authorization. */
import { z } from 'zod';
import { NonEmpty, Str, strictModel } from './common.js';
import { AuthorityLevel, RiskTier } from './enums.js';

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
