import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelProvider } from '@aeh/models';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCampaign } from '../../../src/campaign/run.js';
import { parseSeed } from '../../../src/cli/campaign-support.js';
import type { AttackScenario } from '../../../src/contracts/scenarios.js';
import { MockAdversaryProvider } from '../../../src/providers/mock.js';
import { renderHtml } from '../../../src/reports/render.js';
import { readScorecard, scorecardJson } from '../../../src/reports/scorecard.js';
import { soclabIsolated } from '../../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'soclab-seeded-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const EPOCH = '1700000000';
const SUBSET = 'ATK-001,ATK-002,ATK-003,BEN-001';
/** The files `--seed` with SOURCE_DATE_EPOCH promises byte-identical, per campaign (prefix `<mode>-`). */
const PROMISED = ['scorecard.json', 'executive.html', 'technical.html', 'summary.txt'];

const folder = (name: string) => join(root, name);
const read = (dir: string, file: string) => readFileSync(join(dir, file));

/** Another "machine": time zone, locale and scheduling (one run at a time) differ from the default run. */
const ELSEWHERE = {
  env: { TZ: 'Asia/Kolkata', LC_ALL: 'de_DE.UTF-8', LANG: 'de_DE.UTF-8' },
  args: ['--concurrency', '1'],
};

async function campaign(out: string, mode: string, seed: string, elsewhere = { env: {}, args: [] as string[] }) {
  const r = await soclabIsolated(
    ['campaign', '--mode', mode, '--scenario', SUBSET, '--seed', seed, '--out', out, ...elsewhere.args],
    { SOURCE_DATE_EPOCH: EPOCH, ...elsewhere.env },
  );
  expect(r.stderr).not.toMatch(/Error/);
  // 0, or 1 when a gate fails (baseline's do): the campaign ran to the end either way.
  expect([0, 1], r.stderr).toContain(r.code);
  return r.code;
}

function expectSameBytes(a: string, b: string, files: string[]) {
  for (const file of files) expect(read(b, file).equals(read(a, file)), `${file} differs`).toBe(true);
}

describe('seeded campaigns (--seed with SOURCE_DATE_EPOCH)', () => {
  it('two seeded mock campaigns in different folders, time zones and concurrency write byte-identical reports, protected and baseline', async () => {
    for (const mode of ['protected', 'baseline']) {
      const [a, b] = [folder(`${mode}-a`), folder(`nested/elsewhere/${mode}-b`)];
      const codes = await Promise.all([campaign(a, mode, '7'), campaign(b, mode, '7', ELSEWHERE)]);
      expect(codes[1]).toBe(codes[0]);
      expectSameBytes(
        a,
        b,
        PROMISED.map((f) => `${mode}-${f}`),
      );
      // The PDF's input (the one-page HTML) follows from the scorecard alone.
      const [sa, sb] = [
        readScorecard(join(a, `${mode}-scorecard.json`)),
        readScorecard(join(b, `${mode}-scorecard.json`)),
      ];
      expect(renderHtml(sb, 'onepage')).toBe(renderHtml(sa, 'onepage'));
      // What makes them reproducible is visible, and nothing names the folder or the wall clock.
      expect(sa.campaign.reproducible).toEqual({ seed: 7, epoch: '2023-11-14T22:13:20.000Z', latency: 'not_reported' });
      expect(sa.generated_at).toBe('2023-11-14T22:13:20.000Z');
      expect(sa.campaign.started_at).toBe('2023-11-14T22:13:20.000Z');
      // The harness run header agrees: its id is the campaign id, its times the epoch, in both folders.
      for (const dir of [a, b]) {
        const header = JSON.parse(readFileSync(join(dir, mode, 'experiment.json'), 'utf8'));
        expect([header.id, header.started_at, header.finished_at]).toEqual([
          sa.campaign.campaign_id,
          '2023-11-14T22:13:20.000Z',
          '2023-11-14T22:13:20.000Z',
        ]);
      }
      expect(sa.runs.length).toBe(4);
      expect(sa.runs.every((r) => r.latency_ms === 0)).toBe(true);
      for (const file of PROMISED) expect(read(a, `${mode}-${file}`).toString()).not.toContain(root);
      expect(read(a, `${mode}-summary.txt`).toString()).toContain('Reproducible   seed 7');
      // Chains were written and verified (each seeded campaign gets its own evidence database by default).
      expect(sa.chains.all_valid).toBe(true);
      expect(sa.chains.runs.every((c) => c.length > 0 && c.root_hash !== null)).toBe(true);
    }
  }, 120_000);

  it('another seed gives other ids and chain hashes but the same scores', async () => {
    const [a, c] = [folder('protected-a'), folder('protected-seed-8')];
    // Seed 7's campaign from the test above (run here when that test was filtered out).
    if (!existsSync(join(a, 'protected-scorecard.json'))) await campaign(a, 'protected', '7');
    await campaign(c, 'protected', '8');
    const [sa, sc] = [
      readScorecard(join(a, 'protected-scorecard.json')),
      readScorecard(join(c, 'protected-scorecard.json')),
    ];
    expect(sc.campaign.campaign_id).not.toBe(sa.campaign.campaign_id);
    for (const [i, run] of sc.runs.entries()) expect(run.run_id).not.toBe(sa.runs[i]!.run_id);
    for (const [i, chain] of sc.chains.runs.entries()) expect(chain.root_hash).not.toBe(sa.chains.runs[i]!.root_hash);
    expect(JSON.stringify(sc.assessment)).toBe(JSON.stringify(sa.assessment));
    expect(sc.runs.map((r) => r.trajectory_hash)).toEqual(sa.runs.map((r) => r.trajectory_hash));
  }, 60_000);

  it('a seed that is not an integer from 0 to 2^31-1, or a bad SOURCE_DATE_EPOCH, exits 2 naming it', async () => {
    for (const seed of ['-1', 'abc', '1.5', '1e3', '2147483648', ' ', '0x10']) {
      expect(() => parseSeed(seed), seed).toThrow('--seed must be an integer from 0 to 2147483647');
    }
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed('2147483647')).toBe(2147483647);
    const [seed, epoch] = await Promise.all([
      soclabIsolated(['campaign', '--seed', '1.5', '--out', folder('bad-seed')]),
      soclabIsolated(['campaign', '--seed', '1', '--scenario', 'BEN-001', '--out', folder('bad-epoch')], {
        SOURCE_DATE_EPOCH: 'yesterday',
      }),
    ]);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain("--seed must be an integer from 0 to 2147483647 (got '1.5')");
    expect(epoch.code).toBe(2);
    expect(epoch.stderr).toContain("SOURCE_DATE_EPOCH must be an integer number of seconds (got 'yesterday')");
  }, 60_000);

  it('two seeded `soclab demo` runs write byte-identical reports', async () => {
    const [a, b] = [folder('demo-a'), folder('demo-b')];
    const runs = await Promise.all(
      [a, b].map((out) => soclabIsolated(['demo', '--seed', '11', '--out', out], { SOURCE_DATE_EPOCH: EPOCH })),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expectSameBytes(a, b, [...PROMISED, ...PROMISED.map((f) => `baseline-${f}`)]);
    const s = readScorecard(join(a, 'scorecard.json'));
    expect(s.comparison?.paired.attack_pairs).toBeGreaterThan(0);
  }, 120_000);
});

/** The scripted mock, answering each call after a delay that varies from call to call (100 to 180 ms). */
function slowed(scenario: AttackScenario): ModelProvider {
  const mock = new MockAdversaryProvider({
    behavior: scenario.provider.behavior,
    model: scenario.provider.model,
    script: scenario.provider.script,
    costPerCallUsd: scenario.provider.cost_per_call_usd,
  });
  let calls = 0;
  const slow = new Set(['generate', 'generateStructured', 'requestTool', 'continueAfterTool']);
  return new Proxy(mock, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !slow.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS + (calls++ % 5) * 20));
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}

const SLOW_MS = 100;

function plain(scenario: AttackScenario): ModelProvider {
  return new MockAdversaryProvider({
    behavior: scenario.provider.behavior,
    model: scenario.provider.model,
    script: scenario.provider.script,
    costPerCallUsd: scenario.provider.cost_per_call_usd,
  });
}

describe('scores do not depend on the wall clock', () => {
  it('a slowed agent gets the same composite (unseeded) and, seeded, the same scorecard bytes', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', EPOCH);
    const request = { mode: 'protected' as const, scenarios: SUBSET.split(','), seed: 5 };
    const hooks = (name: string, providerFactory: (s: AttackScenario) => ModelProvider) => ({
      runDir: folder(name),
      providerFactory,
    });
    const fast = await runCampaign(request, hooks('fast', plain));
    const slow = await runCampaign(request, hooks('slow', slowed));
    // The harness journal measured the slow agent as slower ...
    const durations = (run: typeof fast) =>
      readFileSync(join(run.runDir, 'journal.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; result?: { duration: number } })
        .flatMap((line) => (line.type === 'result' ? [line.result!.duration] : []));
    expect(durations(slow).length).toBe(4);
    for (const seconds of durations(slow)) expect(seconds).toBeGreaterThanOrEqual(SLOW_MS / 1000);
    expect(durations(slow)).not.toEqual(durations(fast));
    // ... and nothing the scorecard shows moved (but the run folder's name, which the test chose).
    const unnamed = (run: typeof fast) =>
      scorecardJson({ ...run.scorecard, campaign: { ...run.scorecard.campaign, run_folder: 'x' } });
    expect(slow.scorecard.campaign.run_folder).toBe('slow');
    expect(unnamed(slow)).toBe(unnamed(fast));

    vi.unstubAllEnvs();
    const { seed: _seed, ...unseeded } = request;
    const [u1, u2] = [
      await runCampaign(unseeded, hooks('fast-unseeded', plain)),
      await runCampaign(unseeded, hooks('slow-unseeded', slowed)),
    ];
    expect(u2.records[0]!.outcome.run_id).not.toBe(u1.records[0]!.outcome.run_id);
    expect(u2.assessment.composite).toBe(u1.assessment.composite);
    expect(u2.assessment.authority).toEqual(u1.assessment.authority);
    expect(u2.assessment.composite).toBe(fast.assessment.composite);
  }, 120_000);
});
