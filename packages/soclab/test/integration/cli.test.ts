import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIO_DIR, loadCorpus } from '../../src/scenarios/loader.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const main = join(root, 'packages/soclab/src/cli/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'soclab-cli-'));
const db = join(dir, 'evidence.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function soclab(...args: string[]) {
  return soclabWith({}, ...args);
}

function soclabWith(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', SOCLAB_SCENARIO_DIR: '', SOCLAB_DATABASE_URL: db, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('soclab CLI', () => {
  it('investigate --json runs the clean baseline investigation, stores it and redacts canaries', () => {
    const r = soclab('investigate', '--mode', 'baseline', '--provider', 'mock', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out);
    expect(body.scenario.id).toBe('BEN-001');
    expect(body.investigation.status).toBe('complete');
    expect(body.investigation.recommended_action.tool_name).toBe('revoke_sessions');
    expect(body.chain).toMatchObject({ valid: true, length: body.outcome.audit_chain_valid ? body.chain.length : -1 });
    expect(body.evidence_store).toBe(db);
    // The raw SIEM output holds the run's canary; nothing printed may carry it in any form.
    expect(r.out).toContain('[REDACTED]');
    expect(r.out).not.toMatch(/CANARY-SECRET-/);
    expect(r.out).not.toContain(Buffer.from('CANARY-SECRE').toString('base64'));

    const v = soclab('verify-chain', body.run_id);
    expect(v.code).toBe(0);
    expect(v.out).toContain('1 of 1 chains valid');
  });

  it('verify-chain exits 1 and names the sequence when a stored event was changed', () => {
    const body = JSON.parse(soclab('investigate', '--scenario', 'ATK-005', '--json').out);
    const sqlite = new Database(db);
    sqlite
      .prepare('update audit_events set payload = replace(payload, ?, ?) where run_id = ? and sequence = 3')
      .run('"finish_reason":"tool_proposal"', '"finish_reason":"stop"', body.run_id);
    sqlite.close();
    const v = soclab('verify-chain', body.run_id, '--json');
    expect(v.code).toBe(1);
    expect(JSON.parse(v.out).runs[0]).toMatchObject({
      valid: false,
      first_invalid_sequence: 3,
      reason: 'payload modified',
    });
    const all = soclab('verify-chain');
    expect(all.code).toBe(1);
    expect(all.out).toMatch(/1 of 2 chains valid|\d+ of \d+ chains valid/);
  });

  it('prints a human investigation and exits 1 with --fail-on-attack when the attack succeeds', () => {
    const r = soclab('investigate', '--scenario', 'atk-001', '--fail-on-attack');
    expect(r.code).toBe(1);
    expect(r.out).toContain('disable_account(user_id=u-svc-backup)');
    expect(r.out).toContain('ATTACK SUCCEEDED');
    expect(r.out).not.toMatch(/CANARY-SECRET-/);
    const grounded = soclab('investigate', '--scenario', 'ATK-001', '--behavior', 'grounded', '--fail-on-attack');
    expect(grounded.code).toBe(0);
    expect(grounded.out).toContain('attack resisted');
  });

  it('lists the corpus and shows one scenario', () => {
    const list = soclab('scenarios', '--json');
    expect(list.code).toBe(0);
    // Counts follow the bundled corpus, so adding a scenario file needs no edit here.
    const corpus = loadCorpus({ dir: BUNDLED_SCENARIO_DIR });
    expect(JSON.parse(list.out).scenarios).toHaveLength(corpus.all.length);
    const table = soclab('scenarios');
    expect(table.out).toContain(`${corpus.attacks.length} attacks, ${corpus.benign.length} benign controls`);
    const one = soclab('scenarios', 'ATK-029');
    expect(one.out).toContain('confusable_identifier');
  });

  it('scenarios --dir and SOCLAB_SCENARIO_DIR: a missing folder or one without scenario files exits 2 naming it', () => {
    const missing = join(dir, 'does-not-exist');
    const byFlag = soclab('scenarios', '--dir', missing);
    expect(byFlag.code).toBe(2);
    expect(byFlag.err).toContain(`${missing}: scenario folder does not exist (from --dir)`);
    expect(byFlag.out).toBe('');
    const byEnv = soclabWith({ SOCLAB_SCENARIO_DIR: missing }, 'scenarios');
    expect(byEnv.code).toBe(2);
    expect(byEnv.err).toContain(`${missing}: scenario folder does not exist (from SOCLAB_SCENARIO_DIR)`);
    // A folder that exists but has no attacks/ or controls/ (here: the scenario files sit at its top level).
    const flat = mkdtempSync(join(dir, 'flat-'));
    writeFileSync(join(flat, 'ATK-101.yaml'), 'id: ATK-101\n');
    const wrongLayout = soclabWith({ SOCLAB_SCENARIO_DIR: flat }, 'scenarios', '--json');
    expect(wrongLayout.code).toBe(2);
    expect(wrongLayout.err).toContain(`${flat}: no scenario files: expected attacks/ATK-*.yaml`);
    const file = join(flat, 'ATK-101.yaml');
    expect(soclab('scenarios', '--dir', file).err).toContain(`${file}: scenario folder is not a directory`);
  });

  it('rejects unknown scenarios, modes and providers with exit 2', () => {
    const s = soclab('investigate', '--scenario', 'ATK-999');
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/unknown scenario 'ATK-999'/);
    expect(soclab('investigate', '--mode', 'sideways').code).toBe(2);
    expect(soclab('investigate', '--provider', 'nope').code).toBe(2);
  });

  it('suggests the closest scenario id for a mistyped one, as campaign --scenario does (exit 2)', () => {
    const shown = soclab('scenarios', 'ATK-01');
    expect(shown.code).toBe(2);
    expect(shown.err).toContain("unknown scenario 'ATK-01'; did you mean 'ATK-001'?");
    const campaign = soclab('campaign', '--scenario', 'ATK-01');
    expect(campaign.code).toBe(2);
    expect(campaign.err).toContain("did you mean 'ATK-001'?");
    // Nothing close: no suggestion, the known ids instead.
    const far = soclab('scenarios', 'zzzzzzzzzzzz');
    expect(far.code).toBe(2);
    expect(far.err).not.toContain('did you mean');
    expect(far.err).toContain('known: ATK-001');
  });
});
