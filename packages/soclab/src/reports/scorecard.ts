import { readFileSync } from 'node:fs';
import { errorMessage } from '@aeh/harness/errors';
import { firstZodIssue } from '@aeh/harness/zod-issues';
import { z } from 'zod';
import { Robustness } from '../attack/robustness.js';
import type { CampaignInfo, CampaignRun } from '../campaign/run.js';
import { AuthorityLevel } from '../contracts/enums.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../control/redaction.js';
import { AblationReport } from '../scoring/ablation-report.js';
import { describeAttempts } from '../scoring/intrinsic.js';
import { PairedComparison } from '../scoring/paired.js';
import { assertSameProfile, GateName } from '../scoring/profile.js';
import { Assessment } from '../scoring/result.js';

/**
 * The versioned JSON scorecard: everything a report shows, computed once by the scoring engine and read back from
 * the campaign's journal. Every report (executive and technical HTML, text summary, PDF) renders from it and
 * computes nothing of its own. Canary-redacted as a whole; written with sorted keys.
 */
export const SCORECARD_SCHEMA = 'soclab.scorecard';
/**
 * 2.0.0 adds the three ledgers, repeat evidence, the errored summary, gate attribution and scenario-level paired
 * counts (all optional in the schema). Migration: a 1.0.0 scorecard still loads and renders unchanged (its
 * assessment says profile 1.0.0 and has no ledgers); compare scorecards only within one scoring profile.
 */
export const SCORECARD_VERSION = '2.0.0';
export const READABLE_SCORECARD_VERSIONS = ['1.0.0', '2.0.0'] as const;

export const ComparisonRow = z.strictObject({
  label: z.string(),
  composite: z.number(),
  attack_success_rate: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  false_block_rate: z.number(),
  gate_failures: z.array(GateName),
  authority: AuthorityLevel,
  sample_count: z.number().int(),
  cost_is_estimated: z.boolean(),
});
export type ComparisonRow = z.infer<typeof ComparisonRow>;

export const CampaignSummary = z.strictObject({
  campaign_id: z.string(),
  label: z.string(),
  mode: z.enum(['baseline', 'protected']),
  ablated: z.string().nullable(),
  provider: z.string(),
  /** Validation level of the provider (`<level>: <what was done>`); absent in older scorecards. */
  provider_validation: z.string().nullable().optional(),
  model: z.string(),
  /** The model names the provider answered as (dated snapshots of `model`); absent in older scorecards. */
  models_returned: z.array(z.string()).optional(),
  authority_level: AuthorityLevel,
  approver: z.string(),
  repeats: z.number().int(),
  scenarios_requested: z.array(z.string()).nullable(),
  policy_version: z.string(),
  fixture: z.strictObject({ name: z.string(), version: z.string(), sha256: z.string() }),
  prompt_version: z.string(),
  incident: z.strictObject({ id: z.string(), version: z.string(), title: z.string() }),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  state: z.string(),
  /** The harness run folder (journal + experiment.json), relative to the scorecard when possible. */
  run_folder: z.string(),
  skipped: z.array(z.strictObject({ scenario_id: z.string(), reason: z.string() })),
  errors: z.array(z.strictObject({ scenario_id: z.string(), repeat: z.number().int(), error: z.string() })),
  /** Scorecard 2.0.0: the corpus hash and each scenario's source and content hash (a weakened override shows). */
  corpus: z
    .strictObject({
      sha256: z.string(),
      scenarios: z.array(z.strictObject({ id: z.string(), source: z.string(), sha256: z.string() })),
    })
    .optional(),
  /** A seeded (reproducible) campaign: its seed, the clock's start (SOURCE_DATE_EPOCH) and that latency is left out. */
  reproducible: z
    .strictObject({ seed: z.number().int(), epoch: z.string(), latency: z.literal('not_reported') })
    .nullable()
    .optional(),
});
export type CampaignSummary = z.infer<typeof CampaignSummary>;

export const RunRow = z.strictObject({
  scenario_id: z.string(),
  scenario_version: z.string(),
  title: z.string(),
  attack_class: z.string(),
  family: z.string(),
  difficulty: z.string(),
  expected_control: z.string(),
  repeat: z.number().int(),
  run_id: z.string(),
  mode_name: z.string(),
  attack_succeeded: z.boolean(),
  oracle: z.string().nullable(),
  false_block: z.boolean(),
  leaked_canary: z.boolean(),
  leak_where: z.array(z.string()),
  approval_bypassed: z.boolean(),
  out_of_scope_execution: z.boolean(),
  unapproved_model_used: z.boolean(),
  claims_supported: z.number().int(),
  claims_total: z.number().int(),
  recommended_tool: z.string().nullable(),
  expected_tool: z.string().nullable(),
  /** The proposed action's arguments as redacted JSON (untrusted: written by the model). */
  action_arguments: z.string().nullable(),
  action_status: z.string().nullable(),
  action_reasons: z.array(z.string()),
  investigation_status: z.string(),
  completed: z.boolean(),
  solved: z.boolean(),
  approvals_requested: z.number().int(),
  tokens: z.number().int(),
  latency_ms: z.number(),
  cost_usd: z.number(),
  cost_is_estimated: z.boolean(),
  /** What the agent itself attempted in this run (intrinsic ledger); absent before scorecard 2.0.0. */
  attempted: z.array(z.string()).optional(),
  /** Hash of the agent's trajectory with run-specific ids masked: equal hashes = identical behaviour. */
  trajectory_hash: z.string().nullable().optional(),
});
export type RunRow = z.infer<typeof RunRow>;

/** One run's chain verification as the scorecard shows it (not a stored chain row: see evidence/hash-chain.ts). */
export const ChainStatusRow = z.strictObject({
  scenario_id: z.string(),
  repeat: z.number().int(),
  run_id: z.string(),
  valid: z.boolean(),
  length: z.number().int(),
  root_hash: z.string().nullable(),
  first_invalid_sequence: z.number().int().nullable(),
  reason: z.string().nullable(),
});
export type ChainStatusRow = z.infer<typeof ChainStatusRow>;

export const DecisionEntry = z.strictObject({
  scenario_id: z.string(),
  repeat: z.number().int(),
  sequence: z.number().int(),
  type: z.string(),
  detail: z.string(),
});
export type DecisionEntry = z.infer<typeof DecisionEntry>;

export const Scorecard = z.strictObject({
  schema: z.literal(SCORECARD_SCHEMA),
  schema_version: z.enum(READABLE_SCORECARD_VERSIONS),
  /** ISO time the scorecard was built (`SOURCE_DATE_EPOCH` when set). */
  generated_at: z.string(),
  generator: z.strictObject({ name: z.string(), version: z.string() }),
  campaign: CampaignSummary,
  assessment: Assessment,
  /** Present on a protected scorecard built with its baseline: the paired comparison and the control change. */
  comparison: z
    .strictObject({ baseline: CampaignSummary, baseline_assessment: Assessment, paired: PairedComparison })
    .nullable(),
  /** One row per configuration shown side by side (baseline first when present). */
  comparison_rows: z.array(ComparisonRow),
  ablation: AblationReport.nullable(),
  chains: z.strictObject({
    all_valid: z.boolean(),
    runs: z.array(ChainStatusRow),
    /** When the verification shown was made: as the runs ended, or re-verified from the store when served. */
    verification: z.strictObject({ how: z.enum(['run_end', 'reverified']), at: z.string().nullable() }).optional(),
  }),
  runs: z.array(RunRow),
  decisions: z.array(DecisionEntry),
  /** Static corpus vs adaptive attacker, added by `soclab attack --scorecard` (absent when none was run). */
  robustness: Robustness.optional(),
});
export type Scorecard = z.infer<typeof Scorecard>;

/** The report date: `SOURCE_DATE_EPOCH` (integer Unix seconds) when set, so reports are reproducible; else now. */
export function reportDate(env: NodeJS.ProcessEnv = process.env): Date {
  const raw = env.SOURCE_DATE_EPOCH?.trim();
  if (raw) {
    if (!/^\d+$/.test(raw))
      throw new RangeError(`SOURCE_DATE_EPOCH must be an integer number of seconds (got '${raw}')`);
    return new Date(Number(raw) * 1000);
  }
  return new Date();
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export function comparisonRow(summary: CampaignSummary, assessment: Assessment): ComparisonRow {
  return {
    label: `${summary.provider}/${summary.model} (${summary.label})`,
    composite: round3(assessment.composite),
    attack_success_rate: round3(assessment.attack_success.value),
    ci95: [round3(assessment.attack_success.ci95[0]), round3(assessment.attack_success.ci95[1])],
    false_block_rate: round3(assessment.false_block.value),
    gate_failures: assessment.gate_failures,
    authority: assessment.authority.level,
    sample_count: assessment.sample_count,
    cost_is_estimated: assessment.economics.cost_is_estimated,
  };
}

export function summarize(info: CampaignInfo, runFolder: string): CampaignSummary {
  const { run_dir: _omit, ...rest } = info;
  return { ...rest, run_folder: runFolder };
}

/** What a scorecard is built from: a campaign's info, records and assessment. */
export type ScoredCampaign = Pick<CampaignRun, 'info' | 'records' | 'assessment' | 'runDir'>;

export interface ScorecardOptions {
  /** The run folder as the scorecard should name it (default: the absolute path). */
  runFolder?: string;
  /** A baseline campaign to compare against (paired on scenario and repeat). */
  baseline?: { run: ScoredCampaign; runFolder?: string; paired: PairedComparison };
  ablation?: AblationReport | null;
  /** Extra configurations to list side by side (e.g. ablations). */
  extraRows?: ComparisonRow[];
  generatedAt?: Date;
  version?: string;
}

/** Build (and validate) the scorecard of a campaign. */
export function buildScorecard(run: ScoredCampaign, options: ScorecardOptions = {}): Scorecard {
  const campaign = summarize(run.info, options.runFolder ?? run.runDir);
  if (options.baseline)
    assertSameProfile(
      options.baseline.run.assessment.profile,
      run.assessment.profile,
      'the baseline with this campaign',
    );
  const baseline = options.baseline
    ? summarize(options.baseline.run.info, options.baseline.runFolder ?? options.baseline.run.runDir)
    : null;
  const rows = [
    ...(baseline && options.baseline ? [comparisonRow(baseline, options.baseline.run.assessment)] : []),
    comparisonRow(campaign, run.assessment),
    ...(options.extraRows ?? []),
  ];
  const scorecard: Scorecard = {
    schema: SCORECARD_SCHEMA,
    schema_version: SCORECARD_VERSION,
    generated_at: (options.generatedAt ?? reportDate()).toISOString(),
    generator: { name: 'soclab', version: options.version ?? '0.0.0' },
    campaign,
    assessment: run.assessment,
    comparison:
      baseline && options.baseline
        ? { baseline, baseline_assessment: options.baseline.run.assessment, paired: options.baseline.paired }
        : null,
    comparison_rows: rows,
    ablation: options.ablation ?? null,
    chains: {
      // Each run's chain was verified as it ended; a scorecard rebuilt later says so unless it re-verifies.
      verification: { how: 'run_end', at: campaign.finished_at },
      all_valid: run.records.every((r) => r.evidence.chain.valid),
      runs: run.records.map((r) => ({
        scenario_id: r.outcome.scenario_id,
        repeat: r.repeat,
        run_id: r.evidence.run_id,
        valid: r.evidence.chain.valid,
        length: r.evidence.chain.length,
        root_hash: r.evidence.chain.root_hash,
        first_invalid_sequence: r.evidence.chain.first_invalid_sequence,
        reason: r.evidence.chain.reason,
      })),
    },
    runs: run.records.map((r) => {
      const o = r.outcome;
      return {
        scenario_id: o.scenario_id,
        scenario_version: o.scenario_version,
        title: r.title,
        attack_class: o.attack_class,
        family: o.family,
        difficulty: o.difficulty,
        expected_control: r.expected_control,
        repeat: r.repeat,
        run_id: o.run_id,
        mode_name: r.mode_name,
        attack_succeeded: o.attack_succeeded,
        oracle: r.oracle ? `${r.oracle.name}=${r.oracle.value}` : null,
        false_block: o.false_block,
        leaked_canary: o.leaked_canary,
        leak_where: [...new Set(o.leaks.map((l) => `${l.sink}/${l.encoding}`))].sort(),
        approval_bypassed: o.approval_bypassed,
        out_of_scope_execution: o.out_of_scope_execution,
        unapproved_model_used: o.unapproved_model_used,
        claims_supported: o.claims_supported,
        claims_total: o.claims_total,
        recommended_tool: o.recommended_tool,
        expected_tool: o.expected_tool,
        action_arguments: r.action?.arguments ?? null,
        action_status: r.action?.status ?? null,
        action_reasons: r.action?.reason_codes ?? [],
        investigation_status: r.investigation.status,
        completed: o.completed,
        solved: r.solved,
        approvals_requested: r.approvals_requested,
        tokens: o.tokens_total,
        latency_ms: Math.round(o.latency_ms * 10) / 10,
        cost_usd: o.cost_usd,
        cost_is_estimated: o.cost_is_estimated,
        attempted: o.intrinsic ? describeAttempts(o.intrinsic) : [],
        trajectory_hash: o.trajectory_hash,
      };
    }),
    decisions: run.records.flatMap((r) =>
      r.decisions.map((d) => ({ scenario_id: r.outcome.scenario_id, repeat: r.repeat, ...d })),
    ),
  };
  return Scorecard.parse(redact(scorecard, DEFAULT_CANARY_PATTERNS));
}

/** Sorted-key JSON with 2-space indentation, canary-redacted: the scorecard file's exact bytes. */
export function scorecardJson(scorecard: Scorecard): string {
  return `${JSON.stringify(sortedKeys(redact(scorecard, DEFAULT_CANARY_PATTERNS)), null, 2)}\n`;
}

/**
 * A copy of a JSON-like value with every object's keys in sorted order (integer-like keys still come first, as in
 * any JavaScript object). A loop, not Object.fromEntries over key/value pairs: a fresh `soclab demo` runs this cold
 * on ~20,000 values. `__proto__` would set the prototype through assignment, so such an object is copied with
 * Object.fromEntries, which defines it as an own key.
 */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortedKeys);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  if (keys.includes('__proto__')) return Object.fromEntries(keys.map((k) => [k, sortedKeys(record[k])]));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = record[k];
    out[k] = v === null || typeof v !== 'object' ? v : sortedKeys(v);
  }
  return out;
}

/** Read and validate a scorecard file; errors name the file and the field path. */
export function readScorecard(path: string): Scorecard {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: not a readable JSON file (${errorMessage(error)})`);
  }
  const parsed = Scorecard.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${path}: not a soclab scorecard (${firstZodIssue(parsed.error)})`);
  }
  // A file edited or assembled by hand could pair a baseline scored under another profile: refuse to render it.
  const c = parsed.data.comparison;
  if (c) assertSameProfile(c.baseline_assessment.profile, parsed.data.assessment.profile, `${path}: its baseline`);
  return parsed.data;
}
