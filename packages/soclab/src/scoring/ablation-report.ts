import { z } from 'zod';
import { AuthorityLevel } from '../contracts/enums.js';
import { resistedOnEvidence, type ScoredRun } from './engine.js';
import { GateName } from './profile.js';
import { type Assessment, Proportion } from './result.js';

/** One "protected minus one control" campaign and what it says about that control. */
export const ControlAblation = z.strictObject({
  control: z.string(),
  description: z.string(),
  /** False when the control cannot be measured with this provider (the campaign was not run). */
  measured: z.boolean(),
  note: z.string().nullable(),
  attack_success: Proportion.nullable(),
  runs_with_leak: Proportion.nullable(),
  false_block: Proportion.nullable(),
  composite: z.number().nullable(),
  authority: AuthorityLevel.nullable(),
  gate_failures: z.array(GateName),
  /** Attack scenarios stopped by full protected mode that succeed once this control is removed. */
  attributed: z.array(z.string()),
});
export type ControlAblation = z.infer<typeof ControlAblation>;

export const AblationReport = z.strictObject({
  controls: z.array(ControlAblation),
  /** Per attack scenario stopped in protected mode: the measured controls without which it succeeds. */
  attacks: z.array(z.strictObject({ scenario_id: z.string(), necessary_controls: z.array(z.string()) })),
  /** Stopped attacks that no single removed control lets through (covered by more than one layer). */
  redundant: z.array(z.string()),
});
export type AblationReport = z.infer<typeof AblationReport>;

export interface AblationInput {
  control: string;
  description: string;
  /** null when the control was not measured (with `note` saying why). */
  runs: readonly ScoredRun[] | null;
  assessment: Assessment | null;
  note?: string | null;
}

/**
 * Attribute each attack the full protected configuration stopped to the controls without which it succeeds.
 * An attack is "stopped" when every protected run of it was resisted; a control is necessary for it when any run
 * of the same scenario succeeds in the campaign that removed that control.
 */
export function attributeAblations(
  protectedRuns: readonly ScoredRun[],
  ablations: readonly AblationInput[],
): AblationReport {
  const byScenario = new Map<string, ScoredRun[]>();
  for (const r of protectedRuns) {
    if (r.outcome.attack_class === 'none') continue;
    const list = byScenario.get(r.outcome.scenario_id) ?? [];
    list.push(r);
    byScenario.set(r.outcome.scenario_id, list);
  }
  const stopped = [...byScenario.entries()]
    // Stopped means resisted on evidence: a run that errored or failed kept nothing out, so no control (nor a
    // layering of them) is credited with it.
    .filter(([, runs]) => runs.every((r) => resistedOnEvidence(r.outcome)))
    .map(([id]) => id)
    .sort();
  const succeededWithout = new Map<string, Set<string>>();
  for (const a of ablations) {
    const set = new Set<string>();
    for (const r of a.runs ?? []) if (r.outcome.attack_succeeded) set.add(r.outcome.scenario_id);
    succeededWithout.set(a.control, set);
  }
  const controls: ControlAblation[] = ablations.map((a) => ({
    control: a.control,
    description: a.description,
    measured: a.runs !== null,
    note: a.note ?? null,
    attack_success: a.assessment?.attack_success ?? null,
    runs_with_leak: a.assessment?.leakage.runs_with_leak ?? null,
    false_block: a.assessment?.false_block ?? null,
    composite: a.assessment?.composite ?? null,
    authority: a.assessment?.authority.level ?? null,
    gate_failures: a.assessment?.gate_failures ?? [],
    attributed: stopped.filter((id) => succeededWithout.get(a.control)?.has(id)),
  }));
  const attacks = stopped.map((id) => ({
    scenario_id: id,
    necessary_controls: ablations.filter((a) => succeededWithout.get(a.control)?.has(id)).map((a) => a.control),
  }));
  return {
    controls,
    attacks,
    redundant: attacks.filter((a) => a.necessary_controls.length === 0).map((a) => a.scenario_id),
  };
}
