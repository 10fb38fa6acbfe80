import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { defined } from '../helpers/defined.js';
import { JUNIT_XSDS, validateXsd, XMLLINT_AVAILABLE, XMLLINT_SKIP } from '../helpers/xmllint.js';

// The built CLI (`npm test` builds it in pretest; run `npx tsc -b packages/models packages/harness` by hand).
const BIN = resolve(__dirname, '../../bin/harness.js');

function harness(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let work = '';

/** 50 cases; the agent answers "ok" except for the case ids listed in $FAIL_IDS. */
function writeSuite(quarantine: string[] = []) {
  const cases = Array.from({ length: 50 }, (_, i) => `  - id: c${i}\n    input: "case ${i}"`).join('\n');
  writeFileSync(
    join(work, 'agent.mjs'),
    `export async function run(input) {
  const failing = new Set((process.env.FAIL_IDS ?? '').split(',').filter(Boolean));
  const id = String(input).replace('case ', 'c');
  return { output: failing.has(id) ? 'sorry <script>alert(1)</script>' : 'ok', latency: 0.01 };
}\n`,
  );
  writeFileSync(
    join(work, quarantine.length ? 'suite-q.yaml' : 'suite.yaml'),
    `version: "1.0"
name: cli-compare
agent:
  adapter: module
  options:
    module: ./agent.mjs#run
evaluators:
  - name: contains
    options: { substring: "ok" }
metrics: [success_rate]
${quarantine.length ? `quarantine: [${quarantine.join(', ')}]\n` : ''}tests:
${cases}
`,
  );
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `c${from + i}`);

function runSuite(out: string, failing: string[], suite = 'suite.yaml', format = 'json') {
  const r = harness(['run', suite, '--out', out, '--format', format, '--no-thresholds', '--no-progress'], {
    FAIL_IDS: failing.join(','),
  });
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(() => {
  if (!existsSync(BIN) || !existsSync(resolve(__dirname, '../../dist/cli/main.js'))) {
    throw new Error('build the CLI first: npx tsc -b packages/models packages/harness');
  }
  work = mkdtempSync(join(tmpdir(), 'aeh-results-cli-'));
  writeSuite();
  writeSuite(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']);
  // Baseline fails c40..c49 (80%); "small" drops 2 points with noise; "big" drops 20 points.
  runSuite('base', ids(40, 50));
  runSuite('small', [...ids(0, 3), ...ids(42, 50)]);
  runSuite('big', [...ids(0, 11), ...ids(41, 50)], 'suite.yaml', 'json,junit');
  runSuite('big-q', [...ids(0, 11), ...ids(41, 50)], 'suite-q.yaml');
}, 120_000);

describe('harness compare (built CLI)', () => {
  it('passes the gate on a 2-point drop over 50 cases (not significant)', () => {
    const r = harness(['compare', 'base', 'small', '--fail-on-regression']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Gate passed');
    expect(r.stdout).toContain('worse (n.s.)');
  });

  it('fails the gate with exit 1 on a 20-point drop, and explains it in markdown and JSON', () => {
    const r = harness([
      'compare',
      'base',
      'big',
      '--fail-on-regression',
      '--format',
      'markdown',
      '--out',
      'out/cmp.md',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Gate failed');
    const md = readFileSync(join(work, 'out/cmp.md'), 'utf8');
    expect(md).toContain('**❌ Gate failed**');
    expect(md).toContain('🔴 Newly failing: **11**');
    const json = JSON.parse(harness(['compare', 'base', 'big', '--format', 'json']).stdout);
    expect(json.gate.passed).toBe(false);
    expect(json.gate.violations[0]).toMatchObject({ metric_name: 'pass_rate', condition: 'max_worsening' });
    expect(json.paired.measures[0].delta).toBeCloseTo(-0.2, 9);
    expect(json.deltas.success_rate.is_regression).toBe(true);
    // Without --fail-on-regression the report is produced and the exit code stays 0.
    expect(harness(['compare', 'base', 'big']).code).toBe(0);
  });

  it('honours --strict, --tolerance and the suite quarantine', () => {
    expect(harness(['compare', 'base', 'small', '--strict', '--fail-on-regression']).code).toBe(1);
    expect(harness(['compare', 'base', 'big', '--tolerance', '0.25', '--fail-on-regression']).code).toBe(0);
    const q = harness(['compare', 'base', 'big-q', '--fail-on-regression', '--format', 'json']);
    expect(q.code, q.stderr).toBe(0);
    const json = JSON.parse(q.stdout);
    expect(json.quarantine).toHaveLength(11);
    expect(json.flips.filter((f: { quarantined: boolean }) => f.quarantined)).toHaveLength(11);
  });

  it('rejects bad input with exit 2 and a clear message', () => {
    const missing = harness(['compare', 'base', 'no-such-run.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('run not found: no-such-run.json');
    const alpha = harness(['compare', 'base', 'big', '--alpha', '2']);
    expect(alpha.code).toBe(2);
    expect(alpha.stderr).toContain('--alpha must be a number between 0 and 1');
    expect(harness(['compare', 'base', 'big', '--format', 'pdf']).code).toBe(2);
  });
});

describe('harness compare by stored run id', () => {
  it('resolves ids (and unique prefixes) through the run index', async () => {
    const { openStore } = await import('../../src/store/run-store.js');
    const index = join(work, 'index.sqlite');
    const store = await openStore({ store: index, runsDir: join(work, 'runs') });
    const base = await store.indexRun(join(work, 'base'));
    const big = await store.indexRun(join(work, 'big'));
    await store.close();
    const r = harness([
      'compare',
      base.id,
      big.id.slice(0, 12),
      '--store',
      index,
      '--format',
      'json',
      '--fail-on-regression',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json.baseline_id).toBe(base.id);
    expect(json.candidate_id).toBe(big.id);
    const unknown = harness(['compare', base.id, 'no-such-id', '--store', index]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("run not found: 'no-such-id'");
    const exported = harness(['export', base.id, '--store', index, '--format', 'csv']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.split('\r\n').filter(Boolean)).toHaveLength(51);
  });
});

describe('harness export (built CLI)', () => {
  it('re-renders a run folder as JUnit with the right counts', () => {
    const r = harness(['export', 'big', '--format', 'junit', '--out', 'out/junit.xml']);
    expect(r.code, r.stderr).toBe(0);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testcase' }).parse(
      readFileSync(join(work, 'out/junit.xml'), 'utf8'),
    );
    expect(doc.testsuites['@_tests']).toBe('50');
    expect(doc.testsuites['@_failures']).toBe('20');
    expect(doc.testsuites.testsuite.testcase).toHaveLength(50);
    if (!XMLLINT_AVAILABLE) return console.warn(XMLLINT_SKIP);
    // Both the exported file and the one `harness run --format junit` wrote.
    for (const file of ['out/junit.xml', 'big/report.xml']) {
      for (const [label, xsd] of Object.entries(JUNIT_XSDS)) {
        const verdict = validateXsd(readFileSync(join(work, file), 'utf8'), xsd);
        expect(verdict.valid, `${file} vs ${label}: ${verdict.messages}`).toBe(true);
      }
    }
  });

  it('writes csv, markdown and jsonl to stdout and a self-contained html file', () => {
    const csv = harness(['export', 'big/experiment.json', '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n').filter(Boolean)).toHaveLength(51);
    const md = harness(['export', 'big/journal.jsonl', '--format', 'markdown']);
    expect(md.stdout).toContain('## Failures (20)');
    const jsonl = harness(['export', 'big', '--format', 'jsonl']);
    expect(jsonl.stdout.trim().split('\n')).toHaveLength(50);
    const html = harness(['export', 'big', '--format', 'html', '--out', 'out/r/report.html']);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(work, 'out/r/report.html'), 'utf8');
    expect(page).toContain('sorry &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');
  });

  it('fails with exit 2 on a missing run, an unknown format or a bad option', () => {
    const missing = harness(['export', 'nowhere/experiment.json', '--format', 'csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('run not found: nowhere/experiment.json');
    const format = harness(['export', 'big', '--format', 'cvs']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("did you mean 'csv'?");
    const option = harness(['export', 'big', '--format', 'csv', '--option', 'delimiter=";;"']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('csv reporter option delimiter');
  });
});

describe('the CI example in docs', () => {
  it('uses only commands and options the CLI has', () => {
    const file = resolve(__dirname, '../../../../docs/examples/github-actions-agent-eval.yml');
    const workflow = parseYaml(readFileSync(file, 'utf8')) as { jobs: { eval: { steps: Array<{ run?: string }> } } };
    const commands = workflow.jobs.eval.steps
      .flatMap((s) => (s.run ?? '').split('\n'))
      .flatMap((line) => [...line.matchAll(/npx harness (\w+)([^\n&;|)]*)/g)]);
    expect(commands.map((m) => m[1]).sort()).toEqual(['compare', 'run', 'run']);
    for (const [, command, rest] of commands) {
      const help = harness([defined(command, 'a harness command'), '--help']).stdout;
      for (const option of defined(rest, `${command}'s arguments`).match(/--[a-z-]+/g) ?? [])
        expect(help, `${command} ${option}`).toContain(option);
    }
  });
});
