import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunFlags, runCommand } from '../../../src/cli/commands/run.js';
import { MergeError, mergeRuns } from '../../../src/scale/merge.js';

// Shard runs go through `harness run`'s own pipeline (in process), then `mergeRuns`.

function suiteText(name = 'merge-suite', threshold = 0.55): string {
  const responses = Array.from({ length: 40 }, (_, i) =>
    i % 3 === 0
      ? `      - { input: 'q${i}', output: 'nope', latency: ${(0.05 + i / 200).toFixed(3)} }`
      : `      - { input: 'q${i}', output: 'yes q${i}', latency: ${(0.02 + (i % 9) / 100).toFixed(3)} }`,
  );
  const tests = Array.from({ length: 40 }, (_, i) => `  - { id: t${i}, input: 'q${i}', repeat: ${1 + (i % 3)} }`);
  return [
    'version: "1.0"',
    `name: ${name}`,
    'agent:',
    '  adapter: mock',
    '  options:',
    '    responses:',
    ...responses,
    'evaluators: [{ name: contains, options: { value: "yes" } }]',
    'metrics: [success_rate, accuracy, latency, p95_latency, { name: pass_at_k, options: { k: 2 } }, error_rate]',
    `thresholds: { success_rate: { minimum: ${threshold} } }`,
    'tests:',
    ...tests,
  ].join('\n');
}

const flags = (extra: Partial<RunFlags> & { shard?: string }): RunFlags => ({
  runsDir: 'runs',
  format: 'json',
  thresholds: true,
  progress: false,
  index: false,
  ...extra,
});

async function run(dir: string, suite: string, out: string, shard?: string): Promise<number> {
  return runCommand(join(dir, suite), flags({ out: join(dir, out), shard }));
}

function experiment(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8'));
}

function comparable(results: Record<string, unknown>[]) {
  return results.map(({ duration: _d, started_at: _s, finished_at: _f, ...rest }) => rest);
}

let dir = '';
beforeAll(async () => {
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  dir = mkdtempSync(join(tmpdir(), 'aeh-merge-'));
  writeFileSync(join(dir, 'suite.yaml'), suiteText());
  writeFileSync(join(dir, 'other.yaml'), suiteText('merge-suite', 0.6)); // same name, another version
  expect(await run(dir, 'suite.yaml', 'full')).toBe(0);
  for (const i of [1, 2, 3]) expect(await run(dir, 'suite.yaml', `s${i}`, `${i}/3`)).toBe(0);
});

describe('harness merge', () => {
  it('merging three shards equals the unsharded run: results, order, metrics, intervals, thresholds', async () => {
    const merged = await mergeRuns({ runs: ['s3', 's1', 's2'].map((s) => join(dir, s)), outDir: join(dir, 'merged') });
    expect(merged.exitCode).toBe(0);
    const full = experiment(join(dir, 'full'));
    const out = experiment(join(dir, 'merged'));
    const shards = ['s1', 's2', 's3'].map((s) => experiment(join(dir, s)));

    // Each shard ran a proper, non-empty subset; together exactly the full run's keys.
    for (const s of shards) {
      expect(s.results.length).toBeGreaterThan(0);
      expect(s.results.length).toBeLessThan(full.results.length);
    }
    expect(shards.reduce((n, s) => n + s.results.length, 0)).toBe(full.results.length);

    expect(out.state).toBe('completed');
    expect(comparable(out.results)).toEqual(comparable(full.results));
    expect(out.metrics).toEqual(full.metrics);
    expect(out.metrics.accuracy.interval).not.toBeNull();
    expect(out.metrics.success_rate.interval).toEqual(full.metrics.success_rate.interval);
    expect(out.thresholds).toEqual(full.thresholds);
    expect(out.suite).toEqual(full.suite);
    expect(out.metadata.merged_from.map((m: { shard: string }) => m.shard)).toEqual(['3/3', '1/3', '2/3']);
  });

  it('refuses runs of another version of the suite, naming each run and its content hash', async () => {
    expect(await run(dir, 'other.yaml', 'o3', '3/3')).toBe(0);
    const attempt = mergeRuns({ runs: ['s1', 's2', 'o3'].map((s) => join(dir, s)), outDir: join(dir, 'bad') });
    await expect(attempt).rejects.toBeInstanceOf(MergeError);
    await expect(attempt).rejects.toThrow(
      /different suites or suite versions[\s\S]*o3: suite 'merge-suite' version 1.0, content [0-9a-f]{12}/,
    );
  });

  it('refuses a missing shard unless --allow-partial, which marks the merged run partial', async () => {
    await expect(mergeRuns({ runs: ['s1', 's3'].map((s) => join(dir, s)), outDir: join(dir, 'p1') })).rejects.toThrow(
      /shard 2\/3 missing[\s\S]*--allow-partial/,
    );
    const warnings: string[] = [];
    const partial = await mergeRuns({
      runs: ['s1', 's3'].map((s) => join(dir, s)),
      outDir: join(dir, 'p2'),
      allowPartial: true,
      warn: (m) => warnings.push(m),
    });
    expect(partial.state).toBe('cancelled');
    expect(partial.exitCode).toBe(3);
    expect(warnings.join('\n')).toMatch(/shard 2\/3 missing/);
  });

  it('refuses mixing shards with an unsharded run, and an --out that already holds a run', async () => {
    await expect(mergeRuns({ runs: ['s1', 'full'].map((s) => join(dir, s)), outDir: join(dir, 'm1') })).rejects.toThrow(
      /cannot mix shard runs with unsharded runs/,
    );
    await expect(
      mergeRuns({ runs: ['s1', 's2', 's3'].map((s) => join(dir, s)), outDir: join(dir, 'full') }),
    ).rejects.toThrow(/already holds a run/);
  });

  it('a --suite of another version is refused; the right one supplies metrics and thresholds', async () => {
    const runs = ['s1', 's2', 's3'].map((s) => join(dir, s));
    await expect(mergeRuns({ runs, outDir: join(dir, 'x1'), suite: join(dir, 'other.yaml') })).rejects.toThrow(
      /another version of the suite/,
    );
    const ok = await mergeRuns({ runs, outDir: join(dir, 'x2'), suite: join(dir, 'suite.yaml') });
    expect(ok.metrics).toEqual(experiment(join(dir, 'full')).metrics);
  });

  it('a shard given twice counts each key once (the run named last wins) and says so', async () => {
    const warnings: string[] = [];
    const merged = await mergeRuns({
      runs: ['s1', 's2', 's3', 's2'].map((s) => join(dir, s)),
      outDir: join(dir, 'dup'),
      warn: (m) => warnings.push(m),
    });
    expect(merged.results).toBe(experiment(join(dir, 'full')).results.length);
    expect(merged.metrics).toEqual(experiment(join(dir, 'full')).metrics);
    expect(warnings.join('\n')).toMatch(/more than once/);
  });

  it('resuming an interrupted shard re-applies its shard and runs only its missing keys', async () => {
    expect(await run(dir, 'suite.yaml', 'r2', '2/3')).toBe(0);
    const journal = join(dir, 'r2', 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    const results = lines.filter((l) => l.includes('"type":"result"'));
    // Keep the header and two results: as if the shard run had been killed.
    writeFileSync(journal, `${[lines[0], ...results.slice(0, 2)].join('\n')}\n`);
    expect(await runCommand(join(dir, 'suite.yaml'), flags({ resume: join(dir, 'r2') }))).toBe(0);
    const resumed = experiment(join(dir, 'r2'));
    expect(resumed.results.length).toBe(results.length);
    expect(comparable(resumed.results)).toEqual(comparable(experiment(join(dir, 's2')).results));
    // A different shard for the same folder is refused.
    expect(await runCommand(join(dir, 'suite.yaml'), flags({ resume: join(dir, 'r2'), shard: '1/3' }))).toBe(2);
  });
});
