import { z } from 'zod';
import { Identifier, JsonObject, NonEmpty, Str, strictModel } from './common.js';
import { Difficulty, MockBehavior, ScoreFamily, WorkingStage } from './enums.js';

/** A scripted reply for one stage: raw text (no structured payload), a provider error, or a structured reply. */
/** Lowercase name with hyphens (incident files, transform names). */
const Slug = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be lowercase letters, digits, - or _ (at most 64)');

export const ScriptStep = z.union([
  z.strictObject({ raw_text: z.string() }).readonly(),
  z.strictObject({ error: NonEmpty }).readonly(),
  z.strictObject({ structured: JsonObject }).readonly(),
]);
export type ScriptStep = z.infer<typeof ScriptStep>;

export const MOCK_PROVIDER_ID = 'mock';
export const MOCK_DEFAULT_MODEL = 'mock-investigator-v1';

/** How the scripted model behaves in a scenario. */
export const ProviderSpec = strictModel({
  behavior: MockBehavior.default('grounded'),
  model: NonEmpty.default(MOCK_DEFAULT_MODEL),
  script: z.partialRecord(WorkingStage, ScriptStep).readonly().default({}),
  cost_per_call_usd: z.number().min(0).default(0),
});
export type ProviderSpec = z.infer<typeof ProviderSpec>;
export type ProviderSpecInput = z.input<typeof ProviderSpec>;

/** Run-level attacks performed by the scenario runner (not the model). */
export const HarnessSpec = strictModel({
  forge_grant: z.boolean().default(false),
  tamper_evidence: z.boolean().default(false),
  approve_then_replay: z.boolean().default(false),
  mutate_after_grant: z.boolean().default(false),
});
export type HarnessSpec = z.infer<typeof HarnessSpec>;
export const harnessAny = (h: HarnessSpec): boolean =>
  h.forge_grant || h.tamper_evidence || h.approve_then_replay || h.mutate_after_grant;

export const LimitSpec = strictModel({
  max_calls: z.number().int().positive().nullable().default(null),
  max_cost_usd: z.number().positive().nullable().default(null),
});
export type LimitSpec = z.infer<typeof LimitSpec>;

/**
 * One place a payload is planted: a path into the clean fixture (`users[u-alex-rivera].notes`,
 * `siem_events[siem-005].message`, `incident.ticket_comments`, `endpoints[ep-1].processes[0].command_line`) and
 * what goes there. `{{payload}}` in any string of `value` becomes the (transformed) payload text; `set` replaces
 * the value at the path, `append` adds to the array or string there, `insert` puts `value` into the array at
 * `index`.
 */
export const PlantSpec = strictModel({
  at: NonEmpty,
  op: z.enum(['set', 'append', 'insert']).default('set'),
  index: z.number().int().min(0).default(0),
  value: z.unknown().default('{{payload}}'),
});
export type PlantSpec = z.infer<typeof PlantSpec>;

/**
 * Where the untrusted payload lives. `injection` names a fixture injection point merged for this run (the older
 * form); `text` with `plant` carries the payload in the scenario itself, planted into the clean fixture per run.
 * `transforms` is a chain of registered payload transforms applied to `text` before planting.
 */
export const PayloadSpec = strictModel({
  location: NonEmpty,
  fixture_flag: Str.nullable().default(null),
  injection: Identifier.nullable().default(null),
  text: z.string().min(1).max(20_000).nullable().default(null),
  plant: z.array(PlantSpec).max(8).readonly().default([]),
  transforms: z.array(Slug).max(8).readonly().default([]),
}).superRefine((p, ctx) => {
  if (p.text !== null && p.plant.length === 0)
    ctx.addIssue({ code: 'custom', path: ['plant'], message: 'a payload text needs at least one plant' });
  if (p.plant.length > 0 && p.text === null)
    ctx.addIssue({ code: 'custom', path: ['text'], message: 'plant needs the payload text' });
  if (p.text !== null && p.injection !== null)
    ctx.addIssue({ code: 'custom', path: ['injection'], message: 'use either injection or text with plant, not both' });
});
export type PayloadSpec = z.infer<typeof PayloadSpec>;

export const ForbiddenResult = strictModel({ tool: NonEmpty, target: Str.nullable().default(null) });
export type ForbiddenResult = z.infer<typeof ForbiddenResult>;

export const LegitimateAction = strictModel({ tool: Identifier, target: NonEmpty });
export type LegitimateAction = z.infer<typeof LegitimateAction>;

/** Names of oracle predicates (resolved against the catalogue at load time; never expressions). */
export const OracleSpec = strictModel({
  attack_succeeded_if: NonEmpty.nullable().default(null),
  false_block_if: NonEmpty.nullable().default(null),
  leaked_if: NonEmpty.nullable().default(null),
  /**
   * False for an attack stopped by a structural control that exists in every mode (schema validation, citation
   * checks, the hash chain): `soclab scenarios check` then proves the oracle is NOT reached in baseline instead.
   */
  reachable_in_baseline: z.boolean().default(true),
});
export type OracleSpec = z.infer<typeof OracleSpec>;

export const AtlasReference = strictModel({
  id: z
    .string()
    .trim()
    .regex(/^AML\.T\d{4}(\.\d{3})?$/, 'must look like AML.T0051 or AML.T0051.001'),
  name: NonEmpty,
});
export type AtlasReference = z.infer<typeof AtlasReference>;

export const OwaspReference = strictModel({
  id: z
    .string()
    .trim()
    .regex(/^LLM(0[1-9]|10)$/, 'must be LLM01..LLM10'),
  name: NonEmpty,
});
export type OwaspReference = z.infer<typeof OwaspReference>;

export const SCENARIO_ID_PATTERN = /^(ATK|BEN)-\d{3}$/;

/** An adversarial scenario (ATK-*) or a benign control (BEN-*, attack_class `none`). */
export const AttackScenario = z
  .strictObject({
    id: z.string().trim().regex(SCENARIO_ID_PATTERN, 'must look like ATK-001 or BEN-001'),
    version: z
      .string()
      .trim()
      .regex(/^\d+\.\d+\.\d+$/, 'must be a semantic version such as 1.0.0'),
    attack_class: Identifier,
    title: NonEmpty,
    description: NonEmpty,
    family: ScoreFamily,
    difficulty: Difficulty,
    atlas: z.array(AtlasReference).readonly().default([]),
    owasp_llm: z.array(OwaspReference).readonly().default([]),
    /** The incident (file name under `incidents/`) this scenario runs in; null: the default incident. */
    incident: Slug.nullable().default(null),
    untrusted_payload: PayloadSpec.nullable().default(null),
    provider: ProviderSpec.default({
      behavior: 'grounded',
      model: MOCK_DEFAULT_MODEL,
      script: {},
      cost_per_call_usd: 0,
    }),
    harness: HarnessSpec.default({
      forge_grant: false,
      tamper_evidence: false,
      approve_then_replay: false,
      mutate_after_grant: false,
    }),
    limits: LimitSpec.default({ max_calls: null, max_cost_usd: null }),
    expected_control: Identifier,
    forbidden_result: ForbiddenResult.nullable().default(null),
    legitimate_action: LegitimateAction.nullable().default(null),
    oracle: OracleSpec,
    /** What the scenario deliberately does not cover. */
    limitations: z.array(NonEmpty).readonly().default([]),
  })
  .superRefine((s, ctx) => {
    const problems: string[] = [];
    if (s.attack_class === 'none') {
      if (!s.id.startsWith('BEN-')) problems.push('benign controls must have a BEN- id');
      if (s.difficulty !== 'none') problems.push('benign controls must have difficulty none');
      if (!s.legitimate_action) problems.push('benign controls need legitimate_action');
      if (!s.oracle.false_block_if) problems.push('benign controls need oracle.false_block_if');
      if (s.oracle.attack_succeeded_if) problems.push('benign controls must not set oracle.attack_succeeded_if');
      if (s.forbidden_result) problems.push('benign controls must not set forbidden_result');
      if (harnessAny(s.harness)) problems.push('benign controls must not declare harness attacks');
      if (s.untrusted_payload) problems.push('benign controls must not carry an untrusted_payload');
    } else {
      if (!s.id.startsWith('ATK-')) problems.push('attack scenarios must have an ATK- id');
      if (s.difficulty === 'none') problems.push('attack scenarios need difficulty low, medium or high');
      if (s.atlas.length === 0) problems.push('attack scenarios need at least one ATLAS reference');
      if (s.owasp_llm.length === 0) problems.push('attack scenarios need at least one OWASP LLM reference');
      if (!s.oracle.attack_succeeded_if) problems.push('attack scenarios need oracle.attack_succeeded_if');
      if (s.oracle.false_block_if) problems.push('attack scenarios must not set oracle.false_block_if');
      if (s.legitimate_action) problems.push('attack scenarios must not set legitimate_action');
    }
    if (problems.length > 0) ctx.addIssue({ code: 'custom', path: [], message: `${s.id}: ${problems.join('; ')}` });
  })
  .readonly();
export type AttackScenario = z.infer<typeof AttackScenario>;
export type AttackScenarioInput = z.input<typeof AttackScenario>;
export type Scenario = AttackScenario;

export const isBenign = (s: AttackScenario): boolean => s.attack_class === 'none';

/** The incident definition (the investigation every scenario runs). */
export const IncidentScenario = strictModel({
  id: NonEmpty,
  version: NonEmpty,
  title: NonEmpty,
  fixture: Identifier,
  subject_user_id: NonEmpty,
  expected_techniques: z.array(NonEmpty).min(1).readonly(),
  expected_recommendation: Identifier,
  alert_sources: z.array(Identifier).readonly(),
});
export type IncidentScenario = z.infer<typeof IncidentScenario>;

/** True when the scenario needs the scripted mock (cannot run against a live model). */
export function needsMock(s: AttackScenario): boolean {
  return (
    Object.keys(s.provider.script).length > 0 ||
    s.provider.model !== MOCK_DEFAULT_MODEL ||
    s.provider.cost_per_call_usd > 0
  );
}
