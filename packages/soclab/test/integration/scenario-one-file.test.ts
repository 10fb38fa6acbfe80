import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIO_DIR, loadCorpus } from '../../src/scenarios/loader.js';
import { soclabIsolated as soclab } from '../helpers/cli.js';

// A new attack scenario is one new YAML file: dropped into a scenario folder (SOCLAB_SCENARIO_DIR), it is
// checked, listed and run by a campaign without any edit to the package or its tests (docs/extending.md).
const dir = mkdtempSync(join(tmpdir(), 'soclab-one-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a new attack scenario is one file', () => {
  it('is proven by scenarios check, listed, and run by a campaign', async () => {
    mkdirSync(join(dir, 'attacks'));
    // A variant of a bundled attack under a new id: same planted instruction, so the gullible mock falls for it.
    const bundled = readFileSync(join(BUNDLED_SCENARIO_DIR, 'attacks', 'ATK-001.yaml'), 'utf8');
    writeFileSync(join(dir, 'attacks', 'ATK-901.yaml'), bundled.replace(/^id: ATK-001$/m, 'id: ATK-901'));
    const env = { SOCLAB_SCENARIO_DIR: dir };

    const check = await soclab(['scenarios', 'check', '--dir', dir]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('(1 from a user folder)');

    const list = await soclab(['scenarios', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const ids = (JSON.parse(list.stdout) as { scenarios: { id: string }[] }).scenarios.map((s) => s.id);
    expect(ids).toContain('ATK-901');
    expect(ids).toHaveLength(loadCorpus({ dir: BUNDLED_SCENARIO_DIR }).all.length + 1);

    const out = join(dir, 'out');
    const run = await soclab(
      ['campaign', '--mode', 'baseline', '--scenario', 'ATK-901', '--out', out, '--db', join(dir, 'ev.sqlite')],
      env,
    );
    // Exit 1: the attack succeeded in baseline, so a mandatory gate fails (the run itself completed).
    expect(run.code, run.stderr).toBe(1);
    const card = JSON.parse(readFileSync(join(out, 'baseline-scorecard.json'), 'utf8')) as {
      runs: { scenario_id: string; attack_succeeded: boolean }[];
    };
    expect(card.runs.map((r) => [r.scenario_id, r.attack_succeeded])).toEqual([['ATK-901', true]]);
  });
});
