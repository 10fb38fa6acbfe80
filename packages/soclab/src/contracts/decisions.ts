/** Policy decisions on a proposal and the obligations they carry. */
import { z } from 'zod';
import { bounded, Identifier, JsonObject, NonEmpty, strictModel, TimestampNow, Uuid } from './common.js';
import { DecisionOutcome, RiskTier } from './enums.js';

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
