import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const main = join(root, 'packages/soclab/src/cli/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'soclab-campaign-cli-'));
const db = join(dir, 'evidence.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function soclab(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      NO_COLOR: '1',
      SOCLAB_SCENARIO_DIR: '',
      SOCLAB_POLICY_DIR: '',
      SOCLAB_DATABASE_URL: db,
      ...env,
    },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('soclab campaign / report / version (CLI)', () => {
  it('campaign exits 1 when a mandatory gate fails and writes the run folder and reports under --out', () => {
    const out = join(dir, 'baseline');
    const r = soclab(['campaign', '--mode', 'baseline', '--scenario', 'ATK-001,BEN-001', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^baseline : attack success 100%, composite 0\.\d\d, gates \[sensitive_data_leakage\], authority L1 \(held by mandatory_gate\)$/m,
    );
    for (const f of [
      'baseline-executive.html',
      'baseline-technical.html',
      'baseline-scorecard.json',
      'baseline-summary.txt',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    expect(existsSync(join(out, 'baseline', 'journal.jsonl'))).toBe(true);
    const card = JSON.parse(readFileSync(join(out, 'baseline-scorecard.json'), 'utf8'));
    expect(card.campaign.scenarios_requested).toEqual(['ATK-001', 'BEN-001']);
    expect(card.assessment.coverage).toMatchObject({ numerator: 1, denominator: 30 });
  });

  it('campaign exits 0 for a protected run with no gate failure or critical failure, and can ablate a control', () => {
    const out = join(dir, 'protected');
    const r = soclab(['campaign', '--scenario', 'ATK-026', '--ablate', 'grants', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^protected\s+: attack success 0%/m);
    expect(r.out).toMatch(
      /^protected-without-grants: attack success 100%, composite 0\.\d\d, gates \[approval_bypass\], authority L1 \(held by mandatory_gate\)$/m,
    );
    expect(r.out).toContain('without grants: ATK-026 succeed');
  });

  it.each([
    [['campaign', '--scenario', 'ATK-999'], /unknown scenario 'ATK-999'/],
    [['campaign', '--ablate', 'firewall'], /unknown control 'firewall'/],
    [['campaign', '--approver', 'sometimes'], /unknown approver/],
    [['campaign', '--repeats', '0'], /--repeats must be an integer from 1/],
    [['campaign', '--mode', 'chaos'], /argument 'chaos' is invalid/],
    [['report', join(dir, 'missing.json')], /not a readable JSON file/],
  ])('usage errors exit 2: %j', (args, message) => {
    const r = soclab(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('report --format pdf without Chromium exits 3 and names the package to install', () => {
    const r = soclab(['report', join(dir, 'baseline', 'baseline-scorecard.json')], {
      CHROMIUM_PATH: '',
      PATH: '/nonexistent',
    });
    expect(r.code).toBe(3);
    expect(r.err).toContain('Debian package `chromium`');
  });

  it('report --format html renders the technical report from the scorecard', () => {
    const r = soclab([
      'report',
      join(dir, 'baseline', 'baseline-scorecard.json'),
      '--format',
      'html',
      '--audience',
      'technical',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('<h1>Technical evidence package</h1>');
  });

  it('version prints the package version, --all the versions a scorecard records', () => {
    const plain = soclab(['version']);
    expect(plain.out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const all = JSON.parse(soclab(['version', '--json']).out);
    expect(all).toMatchObject({
      soclab: plain.out.trim(),
      scorecard: '2.0.0',
      scoring_profile: 'soclab-default 2.1.0',
    });
    expect(all.policy).toMatch(/^\d{4}\.\d{2}\.\d{2}-\d+$/);
  });
});
