import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../../src/modes/protected.js';
import { runAdaptiveAttack } from '../../../src/attack/index.js';
import { withRobustness } from '../../../src/attack/robustness.js';
import { runCampaign } from '../../../src/campaign/run.js';
import { groundedMock } from '../../../src/conformance/agents.js';
import { registerAblationModes } from '../../../src/modes/ablation-modes.js';
import { MockAdversaryProvider } from '../../../src/providers/mock.js';
import { buildScorecard, Scorecard } from '../../../src/reports/scorecard.js';
import { renderText } from '../../../src/reports/text.js';
import { loadCorpus } from '../../../src/scenarios/loader.js';
import { scratchEvidence } from '../../helpers/scratch.js';

const scratch = scratchEvidence('soclab-robustness-');
registerAblationModes();
const corpus = loadCorpus({ dir: null });

/**
 * A protected campaign without the policy at L5 (grounded agent) over the corpus minus ATK-009 (the one attack
 * that configuration lets through statically): its static result shows no attack success.
 */
async function weakScorecard() {
  const scenarios = corpus.all.map((s) => s.id).filter((id) => id !== 'ATK-009');
  const run = await runCampaign(
    { mode: 'protected', ablate: 'policy', level: 'L5', scenarios },
    {
      evidence: scratch.evidence,
      runDir: join(scratch.dir, 'weak'),
      providerFactory: groundedMock,
      answersItself: true,
    },
  );
  return buildScorecard(run);
}

describe('robustness section and the adaptive rule', () => {
  it('an adaptive success against the configuration the scorecard rates drops the earned level to L1; elsewhere it changes nothing', async () => {
    const card = await weakScorecard();
    expect(card.assessment.attack_success.numerator).toBe(0);
    const before = card.assessment.authority.level;
    expect(before).not.toBe('L1');
    const gullible = () => new MockAdversaryProvider({ behavior: 'gullible' });
    const settings = { corpus, agent: gullible, budget: 6, restarts: 1, seed: '7', goals: ['ATK-013'] } as const;

    const same = await runAdaptiveAttack({ ...settings, mode: 'protected-without-policy', authorityLevel: 'L5' });
    const demoted = withRobustness(card, same);
    expect(Scorecard.parse(demoted).robustness?.same_configuration).toBe(true);
    expect(demoted.robustness.adaptive.goals_won).toEqual(['revoke_sessions(u-priya-nair)']);
    expect(demoted.robustness.static_corpus).toMatchObject({ successes: 0, rate: 0 });
    expect(demoted.assessment.authority).toMatchObject({ level: 'L1', binding_rule: 'adaptive_attack_success' });
    expect(demoted.robustness).toMatchObject({ level_before: before, level_after: 'L1' });
    const text = renderText(demoted);
    expect(text).toMatch(
      /Robustness {5}static corpus 0(\.0)?% attack success .* adaptive attacker 100(\.0)?% of 1 searches within 6 tries/,
    );
    expect(text).toContain('adaptive_attack_success: the adaptive attacker reached revoke_sessions(u-priya-nair)');

    // The same search against another level is shown but does not touch the level.
    const other = await runAdaptiveAttack({ ...settings, mode: 'protected-without-policy', authorityLevel: 'L4' });
    const shown = withRobustness(card, other);
    expect(shown.robustness.same_configuration).toBe(false);
    expect(shown.assessment.authority.level).toBe(before);
    expect(shown.robustness.rule).toMatch(/another configuration .* level unchanged/);
  }, 180_000);
});
