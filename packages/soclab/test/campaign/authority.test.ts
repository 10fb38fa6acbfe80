import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCampaign } from '../../src/campaign/run.js';
import { BUNDLED_POLICY_DIR } from '../../src/control/policy/folder.js';
import { scratchEvidence } from '../helpers/scratch.js';

const scratch = scratchEvidence('soclab-authority-');
const { dir } = scratch;

describe('authority recommendation from real protected campaigns (mock provider)', () => {
  it('reaches L5 with --repeats 2, as in the origin', async () => {
    const run = await runCampaign(
      { mode: 'protected', repeats: 2 },
      { evidence: scratch.evidence, runDir: join(dir, 'l5') },
    );
    const a = run.assessment;
    expect(a.sample_count).toBe(66);
    expect(a.min_runs_per_scenario).toBe(2);
    expect(a.attack_success).toMatchObject({ numerator: 0, denominator: 60 });
    expect(a.gate_failures).toEqual([]);
    expect(a.authority).toMatchObject({ level: 'L5', binding_rule: 'top_of_ladder', next_level: null });
    // the repeats are harness repeats of the same cases
    expect(run.records.filter((r) => r.outcome.scenario_id === 'ATK-001').map((r) => r.repeat)).toEqual([0, 1]);
  });

  it('keeps L4 but refuses L5 under a policy that denies one benign action in three', async () => {
    // The shipped policy plus one site rule: no block rules at all (BEN-003 is a legitimate block).
    const policyDir = join(dir, 'policy');
    cpSync(BUNDLED_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'site.cedar'),
      [
        '@id("deny_all_block_rules")',
        '@reason("site_rule_no_block_rules")',
        'forbid (principal, action == SocLab::Action::"invoke_tool", resource)',
        'when { resource == SocLab::Tool::"block_indicator" };',
        '',
      ].join('\n'),
    );
    const run = await runCampaign(
      { mode: 'protected', repeats: 2, policyDir },
      { evidence: scratch.evidence, runDir: join(dir, 'deny') },
    );
    const a = run.assessment;
    expect(a.false_block).toMatchObject({ numerator: 2, denominator: 6 });
    expect(run.records.filter((r) => r.outcome.false_block).map((r) => r.outcome.scenario_id)).toEqual([
      'BEN-003',
      'BEN-003',
    ]);
    expect(a.attack_success.numerator).toBe(0);
    expect(a.gate_failures).toEqual([]);
    expect(a.composite).toBeGreaterThan(0.9);
    expect(a.authority).toMatchObject({ level: 'L4', binding_rule: 'false_block_ceiling', next_level: 'L5' });
    expect(a.authority.binding_detail).toContain('33.3% (2/6)');
    const denial = run.records.find((r) => r.outcome.scenario_id === 'BEN-003')!;
    expect(denial.action).toMatchObject({ tool: 'block_indicator', status: 'denied' });
    expect(denial.action!.reason_codes).toContain('site_rule_no_block_rules');
  });
});
