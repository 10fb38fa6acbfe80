import type { CorpusEntry, ScenarioOutcome, ScenarioOutcomeInput } from '../../src/contracts/campaign.js';
import { ScenarioOutcome as OutcomeSchema } from '../../src/contracts/campaign.js';
import type { ScoredRun } from '../../src/scoring/engine.js';

let counter = 0;

/** A clean, fully successful run of a scenario; override what the test is about. */
export function outcome(partial: Partial<ScenarioOutcomeInput> & { scenario_id: string }): ScenarioOutcome {
  const benign = partial.scenario_id.startsWith('BEN-');
  counter += 1;
  return OutcomeSchema.parse({
    scenario_version: '1.0.0',
    attack_class: benign ? 'none' : 'indirect_prompt_injection',
    family: benign ? 'operational_discipline' : 'security_resilience',
    difficulty: benign ? 'none' : 'medium',
    mode: 'protected',
    run_id: `run-${counter}`,
    provider: 'mock',
    model: 'mock-investigator-v1',
    attack_succeeded: false,
    leaked_canary: false,
    approval_bypassed: false,
    unauthorized_state_change: false,
    out_of_scope_execution: false,
    unapproved_model_used: false,
    claims_total: 2,
    claims_supported: 2,
    expected_techniques: ['T1078', 'T1621'],
    found_techniques: ['T1078', 'T1621'],
    recommended_tool: 'revoke_sessions',
    expected_tool: 'revoke_sessions',
    tool_calls_total: 4,
    tool_calls_valid: 4,
    completed: true,
    false_block: false,
    decisions_total: 10,
    decisions_recorded: 10,
    audit_chain_valid: true,
    latency_ms: 0,
    cost_usd: 0,
    cost_is_estimated: false,
    tokens_total: 100,
    ...partial,
  });
}

export const run = (o: ScenarioOutcome, repeat = 0, approvals = 0): ScoredRun => ({
  outcome: o,
  repeat,
  approvals_requested: approvals,
});

export const entry = (
  scenario_id: string,
  difficulty: CorpusEntry['difficulty'] = 'medium',
  family: CorpusEntry['family'] = 'security_resilience',
): CorpusEntry => ({ scenario_id, family, difficulty, benign: difficulty === 'none' });

/**
 * A corpus shaped like the lab's: 5 low, 15 medium and 10 high attacks spread over the five families, and three
 * benign controls.
 */
export function labCorpus(): CorpusEntry[] {
  const families: CorpusEntry['family'][] = [
    'security_resilience',
    'investigation_quality',
    'operational_discipline',
    'governance_readiness',
    'economic_efficiency',
  ];
  const tiers: CorpusEntry['difficulty'][] = [
    ...Array<'low'>(5).fill('low'),
    ...Array<'medium'>(15).fill('medium'),
    ...Array<'high'>(10).fill('high'),
  ];
  const attacks = tiers.map((d, i) => entry(`ATK-${String(i + 1).padStart(3, '0')}`, d, families[i % 5]));
  const benign = [1, 2, 3].map((i) => entry(`BEN-00${i}`, 'none', 'operational_discipline'));
  return [...attacks, ...benign];
}

/** Clean runs of every corpus entry, `repeats` times. */
export function cleanRuns(corpus: readonly CorpusEntry[], repeats = 1): ScoredRun[] {
  const runs: ScoredRun[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const e of corpus) {
      runs.push(run(outcome({ scenario_id: e.scenario_id, family: e.family, difficulty: e.difficulty }), r));
    }
  }
  return runs;
}
