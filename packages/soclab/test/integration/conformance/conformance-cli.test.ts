import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_POLICY_DIR } from '../../../src/control/policy/folder.js';
import { soclabIsolated } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-conformance-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('soclab conformance', () => {
  it('exits 1 and names the failures when a configuration no longer lets the lab discriminate (deny-all policy)', async () => {
    const policy = join(dir, 'policy');
    cpSync(BUNDLED_POLICY_DIR, policy, { recursive: true });
    writeFileSync(
      join(policy, 'site.cedar'),
      '@id("deny_all_tools")\n@reason("site_rule_nothing")\nforbid (principal, action == SocLab::Action::"invoke_tool", resource);\n',
    );
    const r = await soclabIsolated([
      'conformance',
      '--mode',
      'protected',
      '--policy-dir',
      policy,
      '--out',
      join(dir, 'runs'),
      '--json',
    ]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      rows: { agent: string; mode: string; level: string; ok: boolean }[];
    };
    expect(out.ok).toBe(false);
    // With every tool denied even the grounded mock cannot investigate, so it no longer earns L3 ...
    expect(out.rows.find((x) => x.agent === 'grounded-mock')).toMatchObject({
      mode: 'protected',
      level: 'L1',
      ok: false,
    });
    // ... and the five degenerate agents all ran.
    expect(out.rows.map((x) => x.agent).sort()).toEqual([
      'always-500',
      'contract-violating',
      'destroyer',
      'grounded-mock',
      'never-acts',
      'refuse-all',
    ]);
  }, 120_000);

  it('rejects an unknown mode with a usage error (exit 2)', async () => {
    const r = await soclabIsolated(['conformance', '--mode', 'everything']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--mode.*everything/);
  });
});
