/** Evidence references, the action proposals an agent makes, and the proposal port's reply. */
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
  Uuid,
} from './common.js';
import { DecisionOutcome, ExecutionStatus, TrustLabel } from './enums.js';

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
