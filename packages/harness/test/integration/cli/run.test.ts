import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

// These tests drive the compiled CLI in real child processes (`npm test` builds it first in pretest).
const root = resolve(__dirname, '../../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');
const pluginFixture = join(root, 'packages/harness/test/fixtures/plugins/local-plugin.ts');

beforeAll(() => {
  if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
  }
});

function harness(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function workdir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

/** Keys of the journaled results; only complete lines count (the writer may be mid-line while we poll). */
function resultKeys(journal: string): string[] {
  return readFileSync(journal, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.startsWith('{"type":"result"'))
    .map((l) => {
      const r = JSON.parse(l).result;
      return `${r.test_id}#${r.repeat}`;
    });
}

/** Polls the journal until it holds at least `n` results (up to 45 s: a loaded machine starts node slowly). */
async function waitForResults(journal: string, n: number): Promise<void> {
  const until = Date.now() + 45_000;
  while (Date.now() < until) {
    if (existsSync(journal) && resultKeys(journal).length >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cases = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `c${String(i).padStart(3, '0')}`, input: `m${i}`, expected: `m${i}` }),
  ).join('\n');

describe('harness validate', () => {
  it('prints all three mistakes with file:line:col and exits 2', () => {
    const d = workdir({
      'suite.yaml': [
        'version: "1.0"',
        'name: three-mistakes',
        'agent:',
        '  adapter: echo',
        'evaluators:',
        '  - name: exact_mach', // line 6: unknown evaluator
        '  - name: contains',
        '    options:',
        '      case_sensitive: "no"', // line 9: wrong option type
        'tests:',
        '  - id: a',
        '    input: hello',
        '      expected: hello', // line 13: bad indentation
      ].join('\n'),
    });
    const r = harness(['validate', 'suite.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/suite\.yaml:13:7: syntax error: bad indentation/);
    expect(r.stderr).toMatch(
      /suite\.yaml:6:11: evaluators\.0\.name: unknown evaluator 'exact_mach'; did you mean 'exact_match'\?/,
    );
    expect(r.stderr).toMatch(/suite\.yaml:9:23: evaluators\.1\.options\.case_sensitive: invalid evaluator option/);
  });

  it('accepts the shipped examples', () => {
    const r = harness(
      ['validate', ...readdirSync(join(root, 'benchmarks/examples')).map((f) => join(root, 'benchmarks/examples', f))],
      root,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('harness run', () => {
  it('rejects an unknown adapter before any case runs (no silent mock)', () => {
    const d = workdir({
      'suite.yaml': 'version: "1.0"\nname: x\nagent: { adapter: htp }\ntests: [{ id: a, input: hi }]\n',
    });
    const r = harness(['run', 'suite.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/suite\.yaml:3:19: agent\.adapter: unknown adapter 'htp'; did you mean 'http'\?/);
    expect(existsSync(join(d, 'runs'))).toBe(false);

    const ok = workdir({
      'suite.yaml': 'version: "1.0"\nname: x\nagent: { adapter: echo }\ntests: [{ id: a, input: hi }]\n',
    });
    const override = harness(['run', 'suite.yaml', '--agent', 'ecoh'], ok);
    expect(override.code).toBe(2);
    expect(override.stderr).toMatch(/unknown adapter 'ecoh'; did you mean 'echo'\?/);
    expect(existsSync(join(ok, 'runs'))).toBe(false);
  });

  it('exits 1 when a threshold fails and 0 with --no-thresholds', () => {
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: gate
agent: { adapter: echo }
evaluators: [exact_match]
metrics: [success_rate]
thresholds: { success_rate: { minimum: 0.9 } }
tests:
  - { id: a, input: one, expected: one }
  - { id: b, input: two, expected: three }
`,
    });
    const r = harness(['run', 'suite.yaml', '--out', 'out1', '--format', 'console,json'], d);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/success_rate = 0\.5 is below the minimum 0\.9/);
    const report = JSON.parse(readFileSync(join(d, 'out1/report.json'), 'utf8'));
    expect(report.thresholds.passed).toBe(false);
    expect(report.results.map((x: { status: string }) => x.status)).toEqual(['passed', 'failed']);
    expect(harness(['run', 'suite.yaml', '--out', 'out2', '--no-thresholds'], d).code).toBe(0);
  });

  it('a reporter that fails after the run loses nothing else: other reports, the index entry, exit 3 naming it', () => {
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: reporter-fails
agent: { adapter: echo }
tests:
  - { id: a, input: one, expected: one }
`,
    });
    // report.html cannot be written: a folder is in its place.
    mkdirSync(join(d, 'out/report.html'), { recursive: true });
    const store = join(d, 'index.sqlite');
    const r = harness(['run', 'suite.yaml', '--out', 'out', '--format', 'json,html,markdown', '--store', store], d);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/html report .*report\.html/);
    expect(r.stderr).toMatch(/run folder: out/);
    expect(JSON.parse(readFileSync(join(d, 'out/experiment.json'), 'utf8')).state).toBe('completed');
    expect(existsSync(join(d, 'out/report.json'))).toBe(true);
    expect(readFileSync(join(d, 'out/report.md'), 'utf8')).toContain('reporter-fails');
    const listed = harness(['runs', 'list', '--json', '--store', store, '--runs-dir', join(d, 'no-runs')], d);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('reporter-fails');
  });

  it('loads a TypeScript plugin named in the suite and uses it', () => {
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: plugin
plugins: [${pluginFixture}]
agent: { adapter: echo }
evaluators: [{ name: t_local_plugin, options: { n: 7 } }]
tests: [{ id: a, input: hi }]
`,
    });
    const r = harness(['run', 'suite.yaml', '--out', 'out', '--format', 'json'], d);
    expect(r.stderr).not.toMatch(/harness:/);
    expect(r.code).toBe(0);
    const exp = JSON.parse(readFileSync(join(d, 'out/experiment.json'), 'utf8'));
    expect(exp.results[0].evaluations[0]).toMatchObject({ evaluator: 't_local_plugin', details: { n: 7 } });
  });

  it('never writes a secret interpolated from the environment', () => {
    const secret = 'sk-test-9f8e7d6c5b4a';
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: secret
agent: { adapter: echo, options: { prefix: "\${AGENT_API_KEY} " } }
evaluators: [exact_match]
tests: [{ id: a, input: hi, expected: nope }]
`,
    });
    const r = harness(['run', 'suite.yaml', '--out', 'out'], d, { AGENT_API_KEY: secret });
    expect(r.code).toBe(0);
    for (const f of readdirSync(join(d, 'out'))) {
      expect(readFileSync(join(d, 'out', f), 'utf8')).not.toContain(secret);
    }
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(readFileSync(join(d, 'out/journal.jsonl'), 'utf8')).toContain('[REDACTED]');
  });

  it('after SIGKILL midway, --resume runs every case x repeat exactly once', async () => {
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: killed
agent: { adapter: echo, options: { delay_ms: 50 } }
evaluators: [exact_match]
metrics: [success_rate]
tests: file://cases.jsonl
`,
      'cases.jsonl': cases(60),
    });
    const journal = join(d, 'run/journal.jsonl');
    const child = spawn(process.execPath, [bin, 'run', 'suite.yaml', '--out', 'run', '--repeat', '2', '-c', '4'], {
      cwd: d,
      stdio: 'ignore',
      env: { ...process.env, CI: '' },
    });
    const exited = new Promise((r) => child.on('exit', r));
    // Kill once a good share (but not all) of the 120 runs are journaled (the other 90 take over a second).
    await waitForResults(journal, 30);
    child.kill('SIGKILL');
    await exited;
    const before = resultKeys(journal);
    expect(before.length).toBeGreaterThanOrEqual(30);
    expect(before.length).toBeLessThan(120);
    expect(existsSync(join(d, 'run/experiment.json'))).toBe(false);

    const r = harness(['run', 'suite.yaml', '--resume', 'run', '--repeat', '2', '--format', 'json'], d);
    expect(r.stderr).not.toMatch(/harness:/);
    expect(r.code).toBe(0);
    const after = resultKeys(journal);
    expect(after).toHaveLength(120);
    expect(new Set(after).size).toBe(120);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    expect(exp.state).toBe('completed');
    expect(exp.results).toHaveLength(120);
    expect(exp.results[0]).toMatchObject({ test_id: 'c000', repeat: 0 });
    expect(exp.results[119]).toMatchObject({ test_id: 'c059', repeat: 1 });
    expect(exp.metrics.success_rate.value).toBe(1);
  });

  it('on SIGINT stops, writes a valid partial experiment (cancelled) and exits 3', async () => {
    const d = workdir({
      'suite.yaml': `version: "1.0"
name: interrupted
agent: { adapter: echo, options: { delay_ms: 40 } }
evaluators: [exact_match]
tests: file://cases.jsonl
`,
      'cases.jsonl': cases(200),
    });
    const journal = join(d, 'run/journal.jsonl');
    const child = spawn(process.execPath, [bin, 'run', 'suite.yaml', '--out', 'run', '-c', '2', '--format', 'json'], {
      cwd: d,
      stdio: 'ignore',
      env: { ...process.env, CI: '' },
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitForResults(journal, 5);
    child.kill('SIGINT');
    expect(await exited).toBe(3);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    expect(exp.state).toBe('cancelled');
    expect(exp.results.length).toBeGreaterThanOrEqual(5);
    expect(exp.results.length).toBeLessThan(200);
    expect(exp.results.length).toBe(resultKeys(journal).length);
  });
});
