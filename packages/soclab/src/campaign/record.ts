import { z } from 'zod';
import { ScenarioOutcome } from '../contracts/campaign.js';
import { ChainVerification } from '../contracts/events.js';
import type { ScoredRun } from '../scoring/engine.js';

/**
 * What the `soclab` adapter records about one scenario run in the harness journal (`output.metadata.soclab`).
 * Everything a campaign report shows is read back from these records; canaries are redacted before they are written.
 */
export const RUN_RECORD_SCHEMA = 'soclab.run/v1';

export const DecisionRow = z.strictObject({
  sequence: z.number().int().min(1),
  type: z.string(),
  /** Redacted JSON of the event's detail (or payload), at most 300 characters. */
  detail: z.string(),
});
export type DecisionRow = z.infer<typeof DecisionRow>;

export const RunRecord = z.strictObject({
  schema: z.literal(RUN_RECORD_SCHEMA),
  /** The registered mode that ran (e.g. `protected-without-grants`); the outcome's `mode` is baseline or protected. */
  mode_name: z.string(),
  repeat: z.number().int().min(0),
  title: z.string(),
  expected_control: z.string(),
  outcome: ScenarioOutcome,
  solved: z.boolean(),
  oracle: z.strictObject({ name: z.string(), value: z.boolean() }).nullable(),
  false_block_oracle: z.strictObject({ name: z.string(), value: z.boolean(), evaluated: z.boolean() }).nullable(),
  investigation: z.strictObject({
    status: z.string(),
    failure_reason: z.string().nullable(),
    stages_completed: z.number().int().min(0),
  }),
  /** The model names the provider reported on this run's turns (vendors answer with dated snapshots). */
  models_returned: z.array(z.string()).default([]),
  action: z
    .strictObject({
      tool: z.string(),
      arguments: z.string(),
      status: z.string().nullable(),
      reason_codes: z.array(z.string()),
    })
    .nullable(),
  approvals_requested: z.number().int().min(0),
  harness_attacks: z.array(z.strictObject({ attack: z.string(), attempted: z.boolean(), detail: z.string() })),
  evidence: z.strictObject({ run_id: z.string(), chain: ChainVerification }),
  decisions: z.array(DecisionRow),
  policy_version: z.string(),
  fixture: z.strictObject({ name: z.string(), version: z.string(), sha256: z.string() }),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** The facts scoring needs from a record. */
export const scoredRun = (r: RunRecord): ScoredRun => ({
  outcome: r.outcome,
  repeat: r.repeat,
  approvals_requested: r.approvals_requested,
});

/**
 * The record as the adapter wrote it, without validation (for the hot path: progress and the in-memory slim copy).
 * Anything read back from a journal goes through `recordOf`.
 */
export function trustedRecordOf(metadata: Readonly<Record<string, unknown>> | undefined): RunRecord | null {
  const raw = metadata?.soclab as RunRecord | undefined;
  return raw !== undefined && raw !== null && typeof raw === 'object' && raw.schema === RUN_RECORD_SCHEMA ? raw : null;
}

// Every evaluator of a case reads the same record object: validate it once.
const validated = new WeakMap<object, RunRecord | null>();

/** Read the record from a harness result's output metadata (null when it is missing or malformed). */
export function recordOf(metadata: Readonly<Record<string, unknown>> | undefined): RunRecord | null {
  const raw = metadata?.soclab;
  if (raw === undefined || raw === null || typeof raw !== 'object') return null;
  const hit = validated.get(raw);
  if (hit !== undefined) return hit;
  const parsed = RunRecord.safeParse(raw);
  const record = parsed.success ? parsed.data : null;
  validated.set(raw, record);
  return record;
}
