import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../helpers/defined.js';
import { ensureBuilt, harness } from '../../helpers/harness-cli.js';

// Issue 16's defects seen as a user sees them: through the compiled CLI, in real child processes.
const root = resolve(__dirname, '../../../../..');
const fixtures = join(root, 'packages/harness/test/fixtures/plugins');

beforeAll(ensureBuilt);

function workdir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-honest-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

/** A suite whose mock agent reports `latency` seconds for every case; `fail` cases get a wrong answer. */
function suite(name: string, latency: number, passing: number, total: number, extra: string[] = []): string {
  const responses = Array.from({ length: total }, (_, i) => ({
    input: `q${i}`,
    output: i < passing ? `a${i}` : 'wrong',
    latency,
  }));
  return [
    'version: "1.0"',
    `name: ${name}`,
    `plugins: [${join(fixtures, 'median-latency.ts')}, ${join(fixtures, 'ids-reporter.ts')}]`,
    `agent: { adapter: mock, options: { responses: ${JSON.stringify(responses)} } }`,
    'evaluators: [exact_match]',
    'metrics: [success_rate, median_latency]',
    ...extra,
    'tests:',
    ...Array.from({ length: total }, (_, i) => `  - { id: c${i}, input: q${i}, expected: a${i} }`),
  ].join('\n');
}

describe('defect 1: a plugin metric keeps its declared direction through run, store, compare and reports', () => {
  it('records lower_is_better and calls 0.32s -> 0.09s an improvement everywhere', async () => {
    const d = workdir({ 'slow.yaml': suite('lat', 0.32, 3, 3), 'fast.yaml': suite('lat', 0.09, 3, 3) });
    const store = join(d, 'index.sqlite');
    const a = harness(
      ['run', 'slow.yaml', '--out', 'runs/a', '--format', 'console,markdown,html', '--store', store],
      d,
    );
    expect(a.code, a.stderr).toBe(0);
    // Console: the metric table says lower is better.
    expect(a.stdout).toMatch(/median_latency.*0\.32s.*lower is better/);
    const b = harness(['run', 'fast.yaml', '--out', 'runs/b', '--format', 'json', '--store', store], d);
    expect(b.code, b.stderr).toBe(0);

    const exp = JSON.parse(readFileSync(join(d, 'runs/a/experiment.json'), 'utf8'));
    expect(exp.metrics.median_latency).toMatchObject({ direction: 'lower_is_better', formatted_value: '0.32s' });
    expect(readFileSync(join(d, 'runs/a/report.md'), 'utf8')).toMatch(/Median Latency.*0\.32s.*Lower is better/);
    expect(readFileSync(join(d, 'runs/a/report.html'), 'utf8')).toMatch(
      /<td>median_latency<\/td><td class="num">0\.32s<\/td><td class="num"><\/td><td><\/td><td>lower is better<\/td>/,
    );

    // The run index keeps it too (what the viewer and `harness runs` read).
    const db = new Database(store, { readonly: true });
    const rows = db
      .prepare("select direction, formatted_value from metric_values where name = 'median_latency' order by value desc")
      .all();
    db.close();
    expect(rows).toEqual([
      { direction: 'lower_is_better', formatted_value: '0.32s' },
      { direction: 'lower_is_better', formatted_value: '0.09s' },
    ]);

    const cmp = harness(['compare', 'runs/a', 'runs/b', '--format', 'json'], d);
    expect(cmp.code, cmp.stderr).toBe(0);
    const delta = JSON.parse(cmp.stdout).deltas.median_latency;
    expect(delta).toMatchObject({
      direction: 'lower_is_better',
      v1_formatted: '0.32s',
      v2_formatted: '0.09s',
      is_improvement: true,
      is_regression: false,
    });
    const text = harness(['compare', 'runs/a', 'runs/b'], d);
    expect(text.stdout).toMatch(/median_latency.*0\.32s.*0\.09s.*-230 ms.*better/);
    expect(text.stdout).not.toMatch(/median_latency.*worse/);

    // The viewer reads the same index: its run and compare APIs carry the direction and the formatted values.
    const { openStore } = await import('../../../src/store/index.js');
    const { startViewer } = await import('../../../src/viewer/server.js');
    const runStore = await openStore({ store, runsDir: join(d, 'runs') });
    const viewer = await startViewer({ store: runStore, runsDir: join(d, 'runs'), port: 0 });
    try {
      const runs = (await (await fetch(new URL('api/runs', viewer.url))).json()) as {
        items: { id: string; metrics: Record<string, { direction: string; formatted_value: string }> }[];
      };
      const byValue = Object.fromEntries(runs.items.map((r) => [r.metrics.median_latency?.formatted_value, r]));
      expect(byValue['0.32s']?.metrics.median_latency?.direction).toBe('lower_is_better');
      const ids = `baseline=${defined(byValue['0.32s'], 'the 0.32s run').id}&candidate=${defined(byValue['0.09s'], 'the 0.09s run').id}`;
      const cmpApi = (await (await fetch(new URL(`api/compare?${ids}`, viewer.url))).json()) as {
        comparison: { deltas: Record<string, { is_improvement: boolean; direction: string }> };
      };
      expect(cmpApi.comparison.deltas.median_latency).toMatchObject({
        direction: 'lower_is_better',
        is_improvement: true,
      });
    } finally {
      await viewer.close();
      await runStore.close();
    }
  }, 180_000);
});

describe("defect 2: reporters from the suite's plugins, and export --plugin", () => {
  it('runs with --format console,ids and exports with --format ids --plugin', () => {
    const d = workdir({ 'suite.yaml': suite('ids', 0.1, 1, 2) });
    const r = harness(['run', 'suite.yaml', '--out', 'runs/x', '--format', 'console,ids', '--no-index'], d);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(d, 'runs/x/report.txt'), 'utf8')).toBe('c0#0 passed\nc1#0 failed\n');

    const without = harness(['export', 'runs/x', '--format', 'ids'], d);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/unknown reporter 'ids'/);
    const e = harness(['export', 'runs/x', '--format', 'ids', '--plugin', join(fixtures, 'ids-reporter.ts')], d);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toBe('c0#0 passed\nc1#0 failed\n');
    const missing = harness(['export', 'runs/x', '--format', 'ids', '--plugin', './nope.ts'], d);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot load plugin '\.\/nope\.ts'/);
  }, 120_000);
});

describe('defect 6: a collapse on a small suite never passes the gate silently', () => {
  it('0.83 -> 0 on 6 cases is inconclusive (exit 4) with the cases needed; --strict fails (exit 1)', () => {
    const d = workdir({ 'base.yaml': suite('gate', 0.1, 5, 6), 'cand.yaml': suite('gate', 0.1, 0, 6) });
    expect(harness(['run', 'base.yaml', '--out', 'runs/base', '--format', 'json', '--no-index'], d).code).toBe(0);
    expect(harness(['run', 'cand.yaml', '--out', 'runs/cand', '--format', 'json', '--no-index'], d).code).toBe(0);

    // The degenerate case first: the same run against itself passes.
    const same = harness(['compare', 'runs/base', 'runs/base', '--fail-on-regression'], d);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/Gate passed/);

    const r = harness(['compare', 'runs/base', 'runs/cand', '--fail-on-regression'], d);
    expect(r.code).toBe(4);
    expect(r.stdout).not.toMatch(/Gate passed/);
    expect(r.stdout).toMatch(/Gate inconclusive/);
    expect(r.stdout).toMatch(/pass_rate went from 0\.8333 to 0: .*about \d+ paired cases would be needed/);

    const json = JSON.parse(harness(['compare', 'runs/base', 'runs/cand', '--format', 'json'], d).stdout);
    expect(json.gate).toMatchObject({ passed: false, status: 'inconclusive' });
    const needed = json.gate.inconclusive.find((i: { measure: string }) => i.measure === 'pass_rate').units_needed;
    expect(needed).toBeGreaterThan(6);

    expect(harness(['compare', 'runs/base', 'runs/cand', '--fail-on-regression', '--strict'], d).code).toBe(1);
    // The user can widen the practical bound; then the old, statistically honest pass stands.
    const wide = harness(['compare', 'runs/base', 'runs/cand', '--fail-on-regression', '--max-drop', '0.9'], d);
    expect(wide.code).toBe(0);
    expect(harness(['compare', 'runs/base', 'runs/cand', '--max-drop', 'lots'], d).code).toBe(2);
  }, 180_000);
});

describe('defect 7: cross-field checks only on a valid shape', () => {
  it('a schema error does not add a bogus "threshold ... not in metrics" error', () => {
    const d = workdir({
      'suite.yaml': [
        'version: "1.0"',
        'name: shape',
        'agent: { adapter: echo }',
        'metrics: [success_rate, latency]',
        'thresholds: { latency: { maximum: 2 } }',
        'descripton: typo',
        'tests: [{ id: a, input: hi, expected: hi }]',
      ].join('\n'),
    });
    const r = harness(['validate', 'suite.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toMatch(/suite\.yaml:6:1.*unknown field 'descripton'/);
    expect(r.stderr + r.stdout).not.toMatch(/not in metrics/);
    // The check itself still works on a valid suite.
    writeFileSync(
      join(d, 'ok.yaml'),
      readFileSync(join(d, 'suite.yaml'), 'utf8')
        .replace('descripton: typo\n', '')
        .replace('[success_rate, latency]', '[success_rate]'),
    );
    const ok = harness(['validate', 'ok.yaml'], d);
    expect(ok.code).toBe(2);
    expect(ok.stderr + ok.stdout).toMatch(/threshold on 'latency', which is not in metrics/);
  }, 60_000);
});

describe('defect 8: list-plugins --plugin takes one module, the category still works', () => {
  it('list-plugins --plugin ./p.ts metrics lists the plugin metric, exit 0', () => {
    const d = workdir({});
    const r = harness(['list-plugins', '--plugin', join(fixtures, 'median-latency.ts'), 'metrics'], d);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^metrics \(\d+\)/);
    expect(r.stdout).toMatch(/median_latency\s+Median agent latency/);
    expect(r.stdout).not.toMatch(/^evaluators/m);
    const bad = harness(['list-plugins', '--plugin', './missing.ts', 'adapters'], d);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cannot load plugin '\.\/missing\.ts'/);
  }, 60_000);
});
