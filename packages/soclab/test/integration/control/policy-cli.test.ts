import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, soclabIsolated as soclab } from '../../helpers/cli.js';

const POLICY = join(REPO_ROOT, 'packages/soclab/data/policies');
const scratch = mkdtempSync(join(tmpdir(), 'soclab-policy-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function policyCopy(name: string): string {
  const dir = join(scratch, name);
  cpSync(POLICY, dir, { recursive: true });
  return dir;
}

describe('soclab policy', () => {
  it('test runs the bundled table and passes every case', async () => {
    const r = await soclab(['policy', 'test']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^(\d+) passed, 0 failed \(\1 cases; policy 2026\.09\.05-1,/m);
    expect(Number(/^(\d+) passed/m.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(40);
  });

  it('test exits 1 and names the failing case (policy from SOCLAB_POLICY_DIR)', async () => {
    const dir = policyCopy('weakened');
    // A weakened policy: the catch-all block rule is gone, so its test cases fail.
    const deny = join(dir, 'deny.cedar');
    const text = readFileSync(deny, 'utf8');
    writeFileSync(
      deny,
      text.replace(
        'context.proposal.target.indicator_cidr_prefix < 8',
        'context.proposal.target.indicator_cidr_prefix < 0',
      ),
    );
    const r = await soclab(['policy', 'test'], { SOCLAB_POLICY_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL unlisted_catch_all_block_denied {2}.*authorization\.yaml:\d+/);
    expect(r.stdout).toMatch(/decision require_approval, expected deny/);
    expect(r.stdout).toMatch(/ [1-9]\d* failed/);
  });

  it('exits 2 with file:line:col for a policy that does not validate', async () => {
    const dir = policyCopy('broken');
    const permit = join(dir, 'permit.cedar');
    writeFileSync(
      permit,
      readFileSync(permit, 'utf8').replace('context.session.authority_rank >= 5', 'context.session.rank >= 5'),
    );
    const r = await soclab(['policy', 'validate', '--dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/permit\.cedar:\d+:\d+: .*rank/);
  });

  it('validate lists every rule with its decision and reason', async () => {
    const r = await soclab(['policy', 'validate', '--json']);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as {
      version: string;
      rules: { id: string; decision: string; reason: string }[];
    };
    expect(parsed.version).toBe('2026.09.05-1');
    expect(parsed.rules.find((x) => x.id === 'escalate_high_impact')).toMatchObject({
      decision: 'require_approval',
      reason: 'approval_required_high_impact',
    });
  });
});

describe('soclab investigate --mode protected', () => {
  it('prints each control-plane decision and resists the attack', async () => {
    const db = join(scratch, 'evidence.sqlite');
    const r = await soclab(['investigate', '--mode', 'protected', '--scenario', 'ATK-001', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Control plane (policy 2026.09.05-1)');
    expect(r.stdout).toMatch(
      /decision 6: disable_account +deny +\[insufficient_evidence_for_action, protected_asset\] by deny_protected_user, deny_thin_evidence_for_action/,
    );
    expect(r.stdout).toMatch(
      /decision 1: get_identity_profile +allow_with_obligations +\[read_only_tool\] by permit_read_only/,
    );
    expect(r.stdout).toContain('attack resisted');
    expect(r.stdout).not.toMatch(/CANARY-SECRET-\d/);
    const verify = await soclab(['verify-chain', '--db', db]);
    expect(verify.code).toBe(0);
  });

  it('--json carries every decision with its reason codes and deciding policies', async () => {
    const db = join(scratch, 'evidence-json.sqlite');
    const r = await soclab(['investigate', '--mode', 'protected', '--scenario', 'ATK-029', '--db', db, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      decisions: { tool: string; outcome: string; reason_codes: string[]; policies: string[] }[];
    };
    expect(out.decisions).toHaveLength(6);
    expect(out.decisions.at(-1)).toMatchObject({
      tool: 'disable_account',
      outcome: 'deny',
      reason_codes: ['non_ascii_argument'],
      policies: ['deny_non_ascii_argument'],
    });
  });
});
