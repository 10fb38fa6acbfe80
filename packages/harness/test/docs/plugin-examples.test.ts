import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// docs/writing-a-plugin.md's metric and reporter examples, taken from the page as written (not a hand-copied
// fixture) and run through the compiled CLI from a folder outside the repository, as a user would.
const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');
const doc = readFileSync(join(root, 'docs/writing-a-plugin.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'aeh-plugin-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
  }
});

/** The first ```ts block under the `## <heading>` section of the page, and the file its first-line comment names. */
function tsBlock(heading: string): { file: string; code: string } {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/writing-a-plugin.md has no "## ${heading}" section`);
  const next = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, next < 0 ? undefined : next);
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error(`"## ${heading}" has no ts code block`);
  const file = /^\/\/ (\S+\.ts)\n/.exec(block[1])?.[1];
  if (!file) throw new Error(`"## ${heading}": the block does not start with its file name (// plugins/x.ts)`);
  return { file, code: block[1] };
}

function harness(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    timeout: 90_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A suite whose mock agent reports `latency` seconds; case c1 gets a wrong answer. */
function suite(name: string, latency: number): string {
  const responses = [0, 1].map((i) => ({ input: `q${i}`, output: i === 0 ? 'a0' : 'wrong', latency }));
  return [
    'version: "1.0"',
    `name: ${name}`,
    'plugins: [./plugins/median-latency.ts, ./plugins/ids.ts]',
    `agent: { adapter: mock, options: { responses: ${JSON.stringify(responses)} } }`,
    'evaluators: [exact_match]',
    'metrics: [success_rate, median_latency]',
    'tests:',
    '  - { id: c0, input: q0, expected: a0 }',
    '  - { id: c1, input: q1, expected: a1 }',
  ].join('\n');
}

describe('docs/writing-a-plugin.md examples work as written', () => {
  it('the metric keeps "lower is better" and the reporter writes one line per result', () => {
    // The user's project: an ES module package (as the page asks), the harness and zod installed (here: the
    // workspace's node_modules), and the two plugins saved under the names their first lines give.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type: 'module' }));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    mkdirSync(join(dir, 'plugins'));
    const metric = tsBlock('A metric');
    const reporter = tsBlock('A reporter');
    expect([metric.file, reporter.file]).toEqual(['plugins/median-latency.ts', 'plugins/ids.ts']);
    writeFileSync(join(dir, metric.file), metric.code);
    writeFileSync(join(dir, reporter.file), reporter.code);
    writeFileSync(join(dir, 'slow.yaml'), suite('lat', 0.32));
    writeFileSync(join(dir, 'fast.yaml'), suite('lat', 0.09));

    const slow = harness(['run', 'slow.yaml', '--out', 'runs/slow', '--format', 'console,ids', '--no-index']);
    expect(slow.code, slow.stderr).toBe(0); // no thresholds: the failing case c1 does not fail the run
    expect(slow.stderr).not.toMatch(/plugin|ERR/);
    expect(slow.stdout).toMatch(/median_latency.*0\.32s.*lower is better/);
    const experiment = JSON.parse(readFileSync(join(dir, 'runs/slow/experiment.json'), 'utf8'));
    expect(experiment.metrics.median_latency).toMatchObject({
      direction: 'lower_is_better',
      formatted_value: '0.32s',
      sample_size: 2,
    });
    // The reporter, from the suite's plugins: report.txt in the run folder.
    expect(readFileSync(join(dir, 'runs/slow/report.txt'), 'utf8')).toBe('c0#0 passed\nc1#0 failed\n');

    // Lower is better end to end: 0.32s -> 0.09s is an improvement in `harness compare`.
    expect(harness(['run', 'fast.yaml', '--out', 'runs/fast', '--format', 'json', '--no-index']).code).toBe(0);
    const cmp = harness(['compare', 'runs/slow', 'runs/fast', '--format', 'json']);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(JSON.parse(cmp.stdout).deltas.median_latency).toMatchObject({
      direction: 'lower_is_better',
      is_improvement: true,
      is_regression: false,
    });

    // Re-rendering a stored run, exactly as the page says: `harness export runs/<id> --format ids --plugin ...`.
    const exported = harness(['export', 'runs/slow', '--format', 'ids', '--plugin', './plugins/ids.ts']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe('c0#0 passed\nc1#0 failed\n');
  }, 180_000);
});
