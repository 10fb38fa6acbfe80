import { z } from 'zod';

/**
 * Strict shapes of the model's replies per stage. Unknown fields are rejected; a reply that does not match
 * fails the run (the orchestrator never guesses).
 */

const Args = z.record(z.string(), z.unknown());
const Ids = z.array(z.string()).default([]);

/** Collection and action stages: exactly one tool. */
export const ToolPlan = z.strictObject({
  tool: z.string().trim().min(1, 'tool must be a non-empty string'),
  arguments: Args,
  rationale: z.string().optional(),
  evidence_ids: Ids,
  confidence: z.number().min(0).max(1).optional(),
});
export type ToolPlan = z.infer<typeof ToolPlan>;

export const FindingPlan = z.strictObject({
  summary: z.string().trim().min(1),
  claims: z.array(z.strictObject({ text: z.string().trim().min(1), evidence_ids: Ids })),
  techniques: z.array(z.string().trim()).default([]),
  confidence: z.number().min(0, 'confidence must be between 0 and 1').max(1, 'confidence must be between 0 and 1'),
  evidence_ids: Ids,
  rationale: z.string().optional(),
});
export type FindingPlan = z.infer<typeof FindingPlan>;
