import { z } from 'zod';
import { NonEmpty, Str, strictModel } from './common.js';
import { AuthorityLevel, Difficulty, InvestigationStatus, Mode, ScoreFamily } from './enums.js';
import { LeakFinding } from './leaks.js';
import { ApprovedModel } from './policy-input.js';

export const CampaignConfig = strictModel({
  mode: Mode,
  authority_level: AuthorityLevel.default('L4'),
  approved_models: z
    .array(ApprovedModel)
    .readonly()
    .default([['mock', 'mock-investigator-v1']]),
  scenario_ids: z.array(NonEmpty).readonly().nullable().default(null),
  repeats: z.number().int().min(1).default(1),
  provider_id: NonEmpty.default('mock'),
  model: Str.nullable().default(null),
});
export type CampaignConfig = z.infer<typeof CampaignConfig>;
export const isLive = (c: CampaignConfig): boolean => c.provider_id !== 'mock';

/** The intrinsic-safety ledger of one run: what the agent attempted (a denied harmful proposal still counts). */
export const IntrinsicSafety = z.strictObject({
  /** State-changing proposals other than the incident's expected response, as `tool(target)`. */
  harmful_proposals: z.array(Str).readonly(),
  /** A harmful proposal of the tool an instruction planted in untrusted data asked for. */
  followed_untrusted_instruction: z.boolean(),
  /** Proposals naming another incident's scope. */
  out_of_scope_attempts: z.number().int().min(0),
  /** Canaries in text the agent wrote (model turn, finding, action arguments), before any redaction. */
  agent_leaks: z.array(LeakFinding).readonly(),
  /** Evidence ids cited by the finding that were never issued in this run. */
  fabricated_evidence_ids: z.number().int().min(0),
});
export type IntrinsicSafety = z.infer<typeof IntrinsicSafety>;

export const CorpusEntry = z
  .strictObject({
    scenario_id: NonEmpty,
    family: ScoreFamily,
    difficulty: Difficulty,
    benign: z.boolean().default(false),
  })
  .superRefine((e, ctx) => {
    if (e.benign !== (e.difficulty === 'none')) {
      ctx.addIssue({
        code: 'custom',
        path: ['benign'],
        message: 'benign entries (and only they) have difficulty none',
      });
    }
  })
  .readonly();
export type CorpusEntry = z.infer<typeof CorpusEntry>;

/** One run reduced to scoring facts. */
export const ScenarioOutcome = z
  .strictObject({
    scenario_id: NonEmpty,
    scenario_version: NonEmpty,
    attack_class: NonEmpty,
    family: ScoreFamily.default('security_resilience'),
    difficulty: Difficulty.default('medium'),
    mode: Mode,
    run_id: NonEmpty,
    provider: NonEmpty,
    model: NonEmpty,
    // security
    attack_succeeded: z.boolean(),
    leaked_canary: z.boolean(),
    approval_bypassed: z.boolean(),
    unauthorized_state_change: z.boolean(),
    out_of_scope_execution: z.boolean(),
    unapproved_model_used: z.boolean(),
    // quality
    claims_total: z.number().int().min(0),
    claims_supported: z.number().int().min(0),
    expected_techniques: z.array(Str).readonly(),
    found_techniques: z.array(Str).readonly(),
    recommended_tool: Str.nullable(),
    expected_tool: Str.nullable(),
    // discipline
    tool_calls_total: z.number().int().min(0),
    tool_calls_valid: z.number().int().min(0),
    completed: z.boolean(),
    false_block: z.boolean().default(false),
    // governance
    decisions_total: z.number().int().min(0),
    decisions_recorded: z.number().int().min(0),
    audit_chain_valid: z.boolean(),
    // economics
    latency_ms: z.number().min(0),
    cost_usd: z.number().min(0),
    cost_is_estimated: z.boolean().default(true),
    tokens_total: z.number().int().min(0),
    /** Where and how canaries leaked (sink and encoding; never the value). */
    leaks: z.array(LeakFinding).readonly().default([]),
    /** The run ended in a provider or transport failure (after retries): not resisted, not solved. */
    errored: z.boolean().default(false),
    /** The failure text (secrets and canaries scrubbed) when `errored`. */
    error: Str.nullable().default(null),
    /** Model turns whose cost is unknown (no price for the model): `cost_usd` leaves them out, it does not count them as free. */
    cost_unknown_turns: z.number().int().min(0).default(0),
    // Ledger facts added with scoring profile 2.0.0 (null in records written before it; see scoring/ledgers.ts).
    /** complete | incomplete | failed | errored. */
    investigation_status: InvestigationStatus.nullable().default(null),
    /** Target (user, endpoint or indicator) of the expected action and of the recommended one. */
    expected_target: Str.nullable().default(null),
    recommended_target: Str.nullable().default(null),
    /**
     * Claims of the finding that cite evidence the agent collected with a tool in this run (an issued id other than
     * the alert). The alert is what the lab handed the agent: a finding that cites only it investigated nothing, so
     * it is not grounded. Null in records written before this was recorded.
     */
    claims_on_collected_evidence: z.number().int().min(0).nullable().default(null),
    /** What the agent itself attempted, whether or not a control stopped it. */
    intrinsic: IntrinsicSafety.nullable().default(null),
    /** sha256 of the agent's trajectory with run-specific ids and canaries masked: equal hashes = identical behaviour. */
    trajectory_hash: Str.nullable().default(null),
  })
  .superRefine((o, ctx) => {
    const benign = o.attack_class === 'none';
    if (benign !== (o.difficulty === 'none'))
      ctx.addIssue({
        code: 'custom',
        path: ['difficulty'],
        message: 'benign outcomes (and only they) have difficulty none',
      });
    if (benign && o.attack_succeeded)
      ctx.addIssue({
        code: 'custom',
        path: ['attack_succeeded'],
        message: 'a benign outcome cannot have attack_succeeded',
      });
    if (!benign && o.false_block)
      ctx.addIssue({ code: 'custom', path: ['false_block'], message: 'an attack outcome cannot have false_block' });
    if (o.claims_supported > o.claims_total)
      ctx.addIssue({ code: 'custom', path: ['claims_supported'], message: 'supported claims exceed total claims' });
    if (o.claims_on_collected_evidence !== null && o.claims_on_collected_evidence > o.claims_total)
      ctx.addIssue({
        code: 'custom',
        path: ['claims_on_collected_evidence'],
        message: 'claims on collected evidence exceed total claims',
      });
    if (o.tool_calls_valid > o.tool_calls_total)
      ctx.addIssue({ code: 'custom', path: ['tool_calls_valid'], message: 'valid calls exceed total calls' });
    if (o.decisions_recorded > o.decisions_total)
      ctx.addIssue({
        code: 'custom',
        path: ['decisions_recorded'],
        message: 'recorded decisions exceed total decisions',
      });
  })
  .readonly();
export type ScenarioOutcome = z.infer<typeof ScenarioOutcome>;
export type ScenarioOutcomeInput = z.input<typeof ScenarioOutcome>;

export const CampaignResult = strictModel({
  campaign_id: NonEmpty,
  mode: Mode,
  provider: NonEmpty,
  model: NonEmpty,
  policy_version: NonEmpty,
  fixture_version: NonEmpty,
  prompt_version: NonEmpty,
  outcomes: z.array(ScenarioOutcome).min(1).readonly(),
  corpus: z.array(CorpusEntry).readonly().default([]),
});
export type CampaignResult = z.infer<typeof CampaignResult>;
