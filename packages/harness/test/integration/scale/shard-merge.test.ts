import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, harness as runHarness } from '../../helpers/harness-cli.js';

// `harness run --shard i/n` and `harness merge` as a CI matrix uses them: separate processes of the built CLI.

beforeAll(ensureBuilt);

const harness = (args: string[], cwd: string) => runHarness(args, cwd, 60_000);

function suite(threshold: number): string {
  const tests = Array.from({ length: 30 }, (_, i) => `  - { id: c${i}, input: 'n${i}', repeat: ${1 + (i % 2)} }`);
  const responses = Array.from(
    { length: 30 },
    (_, i) =>
      `      - { input: 'n${i}', output: '${i % 4 === 0 ? 'bad' : 'good'}', latency: ${(0.01 * (1 + (i % 6))).toFixed(2)} }`,
  );
  return [
    'version: "1.0"',
    'name: ci-matrix',
    'agent:',
    '  adapter: mock',
    '  options:',
    '    responses:',
    ...responses,
    'evaluators: [{ name: exact_match, options: { value: good } }]',
    'metrics: [success_rate, accuracy, latency, p95_latency]',
    `thresholds: { success_rate: { minimum: ${threshold} } }`,
    'tests:',
    ...tests,
  ].join('\n');
}

const experiment = (d: string) => JSON.parse(readFileSync(join(d, 'experiment.json'), 'utf8'));
const comparable = (results: Record<string, unknown>[]) =>
  results.map(({ duration: _d, started_at: _s, finished_at: _f, ...rest }) => rest);

describe('harness run --shard + harness merge (CLI)', () => {
  it('three shard processes merged equal one unsharded run; reports are written; thresholds gate the merge', () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-shard-'));
    writeFileSync(join(d, 'suite.yaml'), suite(0.9));
    const full = harness(['run', 'suite.yaml', '--out', 'full', '--format', 'json', '--no-index'], d);
    expect(full.stderr).not.toMatch(/harness: /);
    expect(full.code).toBe(1); // the threshold fails: the merged run must fail it too
    for (const i of [1, 2, 3]) {
      const r = harness(
        ['run', 'suite.yaml', '--shard', `${i}/3`, '--out', `shard-${i}`, '--format', 'json', '--no-index'],
        d,
      );
      expect(r.stderr).not.toMatch(/harness: /);
    }
    const merged = harness(
      ['merge', 'shard-1', 'shard-2', 'shard-3', '--out', 'merged', '--format', 'json,junit', '--no-index'],
      d,
    );
    expect(merged.stderr).toMatch(/merged 3 run\(s\)/);
    expect(merged.code).toBe(1);
    expect(existsSync(join(d, 'merged', 'report.xml'))).toBe(true);

    const a = experiment(join(d, 'full'));
    const b = experiment(join(d, 'merged'));
    expect(b.metrics).toEqual(a.metrics);
    expect(b.thresholds).toEqual(a.thresholds);
    expect(comparable(b.results)).toEqual(comparable(a.results));
    expect(JSON.parse(readFileSync(join(d, 'merged', 'report.json'), 'utf8')).metrics).toEqual(a.metrics);
  });

  it('refuses shards of a changed suite with exit 2 and a message naming both versions', () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-shard-'));
    writeFileSync(join(d, 'suite.yaml'), suite(0.5));
    expect(
      harness(['run', 'suite.yaml', '--shard', '1/2', '--out', 's1', '--format', 'json', '--no-index'], d).code,
    ).toBe(0);
    writeFileSync(join(d, 'suite.yaml'), suite(0.6)); // edited between the two matrix jobs
    expect(
      harness(['run', 'suite.yaml', '--shard', '2/2', '--out', 's2', '--format', 'json', '--no-index'], d).code,
    ).toBe(0);
    const r = harness(['merge', 's1', 's2', '--out', 'merged', '--no-index'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot merge runs of different suites or suite versions/);
    expect(r.stderr).toMatch(
      /s1: suite 'ci-matrix' version 1\.0, content [0-9a-f]{12}\n\s+s2: suite 'ci-matrix' version 1\.0, content [0-9a-f]{12}/,
    );
    expect(existsSync(join(d, 'merged', 'journal.jsonl'))).toBe(false);

    const bad = harness(['run', 'suite.yaml', '--shard', '3/2'], d);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--shard expects i\/n with 1 <= i <= n/);
  });
});
