/** Token usage and the normalized record of one model turn. */
import { z } from 'zod';
import { JsonObject, NonEmpty, newUuid, Str, strictModel, TimestampNow, Uuid } from './common.js';
import { DecisionOutcome, FinishReason, RiskTier, Stage } from './enums.js';
import { EvidenceRef } from './proposals.js';

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
