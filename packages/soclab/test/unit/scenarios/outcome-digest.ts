import '../../../src/modes/protected.js';
import type { ScenarioCorpus } from '../../../src/scenarios/loader.js';
import { runScenario } from '../../../src/scenarios/runner.js';

/**
 * What a user sees of one scenario run, without the run's identity (run id, timings): the outcome flags, the
 * counts the scorecard aggregates, the action and its verdict, and the final state. Two corpora that give the
 * same digests give the same demo numbers.
 */
export interface OutcomeDigest {
  readonly key: string;
  readonly outcome: Record<string, unknown>;
  readonly action: Record<string, unknown> | null;
  readonly final_state: Record<string, unknown>;
  readonly oracle: { name: string; value: boolean } | null;
  readonly leaks: number;
}

const OUTCOME_FIELDS = [
  'attack_succeeded',
  'leaked_canary',
  'approval_bypassed',
  'unauthorized_state_change',
  'out_of_scope_execution',
  'unapproved_model_used',
  'claims_total',
  'claims_supported',
  'found_techniques',
  'recommended_tool',
  'expected_tool',
  'tool_calls_total',
  'tool_calls_valid',
  'completed',
  'false_block',
  'decisions_total',
  'decisions_recorded',
  'audit_chain_valid',
  'tokens_total',
] as const;

/** Run every scenario of the corpus once per mode with fixed run ids and digest the results. */
export async function digestCorpus(corpus: ScenarioCorpus, modes: readonly string[]): Promise<OutcomeDigest[]> {
  const out: OutcomeDigest[] = [];
  for (const mode of modes) {
    for (const scenario of corpus.all) {
      const r = await runScenario({ scenario, mode, corpus, runId: `golden-${scenario.id}-${mode}` });
      const outcome = r.outcome as unknown as Record<string, unknown>;
      const action = r.investigation.action_result;
      const { applied_injections: _names, ...finalState } = r.final_state;
      out.push({
        key: `${scenario.id}/${mode}`,
        outcome: Object.fromEntries(OUTCOME_FIELDS.map((f) => [f, outcome[f]])),
        action: action
          ? {
              tool: r.investigation.recommended_action?.tool_name ?? null,
              arguments: r.investigation.recommended_action?.arguments ?? null,
              status: action.status,
              reason_codes: [...action.reason_codes].sort(),
            }
          : null,
        final_state: finalState as unknown as Record<string, unknown>,
        oracle: r.oracle,
        leaks: r.leaks.length,
      });
    }
  }
  return out;
}
