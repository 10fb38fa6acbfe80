import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clearScenarioCache, loadCorpus, ScenarioLoadError } from '../../../src/scenarios/loader.js';
import { soclabIsolated } from '../../helpers/cli.js';

const out = mkdtempSync(join(tmpdir(), 'soclab-corpus-options-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('transform variants and the incident in the corpus', () => {
  it('adds one case per payload attack and chain, after its original; a chain that does not fit makes none', () => {
    const plain = loadCorpus({ dir: null, transforms: null });
    const withChains = loadCorpus({ dir: null, transforms: [['wrap-system'], ['split']] });
    const payloadAttacks = plain.attacks.filter((s) => s.untrusted_payload?.text);
    const splittable = payloadAttacks.filter((s) => (s.untrusted_payload?.plant.length ?? 0) >= 2);
    expect(withChains.attacks.length).toBe(plain.attacks.length + payloadAttacks.length + splittable.length);
    const ids = withChains.attacks.map((s) => s.id);
    expect(ids[ids.indexOf('ATK-013') + 1]).toBe('ATK-013~wrap-system');
    expect(withChains.sources.get('ATK-013~wrap-system')).toBe(withChains.sources.get('ATK-013'));
    expect(withChains.attacks.find((s) => s.id === 'ATK-013~wrap-system')?.untrusted_payload?.transforms).toEqual([
      'wrap-system',
    ]);
    expect(withChains.benign).toEqual(plain.benign);
  });

  it('an unknown transform or a path-like incident name from the environment is a load error naming its source', () => {
    const prev = { t: process.env.SOCLAB_TRANSFORMS, i: process.env.SOCLAB_INCIDENT };
    try {
      process.env.SOCLAB_TRANSFORMS = 'base64,rot14';
      clearScenarioCache();
      expect(() => loadCorpus({ dir: null })).toThrow(ScenarioLoadError);
      expect(() => loadCorpus({ dir: null })).toThrow(/SOCLAB_TRANSFORMS: unknown transform 'rot14'/);
      delete process.env.SOCLAB_TRANSFORMS;
      process.env.SOCLAB_INCIDENT = '../../etc/passwd';
      expect(() => loadCorpus({ dir: null })).toThrow(/incident name '..\/..\/etc\/passwd' must be lowercase/);
      process.env.SOCLAB_INCIDENT = 'oauth-consent-phishing';
      expect(loadCorpus({ dir: null }).incident.id).toBe('INC-2001');
    } finally {
      for (const [k, v] of [
        ['SOCLAB_TRANSFORMS', prev.t],
        ['SOCLAB_INCIDENT', prev.i],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      clearScenarioCache();
    }
  });
});

describe('soclab campaign --incident --transform', () => {
  it('runs a campaign over both incidents with transform variants as their own cases, and breaks results down per incident', async () => {
    const r = await soclabIsolated([
      'campaign',
      '--mode',
      'baseline',
      '--incident',
      'identity-compromise,oauth-consent-phishing',
      '--transform',
      'base64',
      '--out',
      out,
      '--db',
      join(out, 'evidence.sqlite'),
    ]);
    // Baseline fails its gates by design (exit 1), but both incidents ran and wrote their scorecards.
    expect(r.code, r.stderr).toBe(1);
    const breakdown = JSON.parse(readFileSync(join(out, 'incidents.json'), 'utf8'));
    expect(breakdown.incidents.map((i: { incident_id: string }) => i.incident_id)).toEqual(['INC-1001', 'INC-2001']);
    expect(r.stdout).toMatch(/Per incident\n {2}INC-1001 .*attack success \d+\/\d+.*\n {2}INC-2001 /);
    for (const [name, row] of [
      ['identity-compromise', breakdown.incidents[0]],
      ['oauth-consent-phishing', breakdown.incidents[1]],
    ] as const) {
      const card = JSON.parse(readFileSync(join(out, name, 'baseline-scorecard.json'), 'utf8'));
      const runs = card.runs as { scenario_id: string; attack_succeeded: boolean }[];
      const corpus = loadCorpus({ dir: null, incident: name, transforms: [['base64']] });
      expect(runs.map((x) => x.scenario_id).sort()).toEqual(corpus.all.map((s) => s.id).sort());
      expect(row.runs).toBe(corpus.all.length);
      expect(row.attack_success.numerator).toBe(runs.filter((x) => x.attack_succeeded).length);
    }
    const inc2 = JSON.parse(readFileSync(join(out, 'oauth-consent-phishing', 'baseline-scorecard.json'), 'utf8'));
    const byId = new Map(
      (inc2.runs as { scenario_id: string; attack_succeeded: boolean }[]).map((x) => [x.scenario_id, x]),
    );
    expect(byId.get('ATK-201')?.attack_succeeded).toBe(true);
    expect(byId.get('ATK-201~base64')?.attack_succeeded).toBe(false);
  }, 180_000);

  it('bad --transform and --incident exit 2 naming the flag, before anything runs', async () => {
    const dir = join(out, 'bad');
    const t = await soclabIsolated(['campaign', '--transform', 'rot14', '--out', dir]);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--transform: unknown transform 'rot14'; known: base64/);
    const i = await soclabIsolated(['campaign', '--incident', '../secrets', '--out', dir]);
    expect(i.code).toBe(2);
    expect(i.stderr).toMatch(/--incident must be a lowercase name/);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
