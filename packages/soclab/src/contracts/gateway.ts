/** The control gateway's run limits, configuration and the events it records. */
import { z } from 'zod';
import { Identifier, JsonObject, NonEmpty, newUuid, strictModel, TimestampNow, Uuid } from './common.js';
import { AuthorityLevel } from './enums.js';
import { ApprovedModel, ProtectedAssets } from './policy-input.js';

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
