import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, harness } from '../../helpers/harness-cli.js';

// The seed's suite format and the origin harness's result files, through the compiled CLI.
const root = resolve(__dirname, '../../../../..');
const origin = join(root, 'packages/harness/test/fixtures/origin');

beforeAll(ensureBuilt);

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'aeh-seed-'));
  made.push(d);
  return d;
};
const statuses = (runDir: string) =>
  Object.fromEntries(
    (
      JSON.parse(readFileSync(join(runDir, 'experiment.json'), 'utf8')).results as { test_id: string; status: string }[]
    ).map((r) => [r.test_id, r.status]),
  );

describe("the seed's example suite runs verbatim from the repository", () => {
  it('benchmarks/examples/customer_support.yaml: generic adapter, package.module:callable, minimum threshold', () => {
    const out = join(tmp(), 'run');
    // From the repository root, as the seed's guide runs it, and from elsewhere (the module resolves from the
    // suite's project root, not the current directory).
    for (const cwd of [root, tmp()]) {
      const dir = `${out}-${cwd === root ? 'root' : 'elsewhere'}`;
      const r = harness(
        ['run', join(root, 'benchmarks/examples/customer_support.yaml'), '--out', dir, '--no-index'],
        cwd,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Thresholds: all 1 met/);
      expect(statuses(dir)).toEqual({ 'refund-001': 'passed' });
      const exp = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8'));
      expect(exp.agent.adapter).toBe('generic');
      expect(exp.metrics.success_rate.value).toBe(1);
      expect(exp.metrics.latency.value).toBeCloseTo(0.32); // the agent's reported latency
    }
  }, 120_000);

  it("the origin's basic example gives its expected verdicts: 4 of 5, unknown-05 fails, thresholds met", () => {
    const dir = join(tmp(), 'run');
    const r = harness(['run', 'examples/basic/benchmark.yaml', '--out', dir, '--no-index', '--format', 'json'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(statuses(dir)).toEqual({
      'refund-01': 'passed',
      'order-02': 'passed',
      'weather-03': 'passed',
      'greeting-04': 'passed',
      'unknown-05': 'failed',
    });
    const m = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')).metrics;
    expect(m.success_rate.value).toBeCloseTo(0.8);
    expect(m.latency.value).toBeCloseTo(0.192);
    expect(m.cost.value).toBeCloseTo(0.00069);
  }, 90_000);

  it("the origin's mock suite (agent.config, json_match subset, min threshold) passes", () => {
    const dir = join(tmp(), 'run');
    const r = harness(
      ['run', join(origin, 'code_generation.yaml'), '--out', dir, '--no-index', '--format', 'json'],
      root,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(statuses(dir)).toEqual({ 'json-001': 'passed' });
  }, 90_000);

  it('generic adapter errors say what to fix (exit 2, nothing runs)', () => {
    const d = tmp();
    writeFileSync(join(d, 'package.json'), '{}');
    mkdirSync(join(d, 'agents'));
    writeFileSync(
      join(d, 'agents', 'bot.mjs'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the agent module's own source text.
      'export const notFn = 42;\nexport function reply(x) { return `hi ${x}`; }\n',
    );
    const suite = (module: string) =>
      `version: "1.0"\nname: g\nagent: { adapter: generic, module: "${module}" }\ntests: [{ id: a, name: a, input: x, expected: hi x }]\n`;
    const cases: [string, RegExp][] = [
      ['agents.bot', /Invalid import path 'agents\.bot'\. Expected format 'module\.submodule:function_or_class'/],
      // No way out of the project through the dotted name: only identifiers separated by dots.
      ['..agents.bot:reply', /Invalid import path '\.\.agents\.bot:reply'/],
      ['agents.nope:reply', /Could not import module 'agents\.nope': no file agents\/nope\{\.ts,/],
      ['agents.bot:missing', /Module 'agents\.bot' has no attribute 'missing'/],
      ['agents.bot:notFn', /Target 'agents\.bot:notFn' is not callable\./],
    ];
    for (const [module, message] of cases) {
      writeFileSync(join(d, 'suite.yaml'), suite(module));
      const r = harness(['run', 'suite.yaml', '--out', join(d, `run-${module}`), '--no-index'], d);
      expect(r.code, `${module}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    writeFileSync(join(d, 'suite.yaml'), suite('agents.bot:reply'));
    const ok = harness(['run', 'suite.yaml', '--out', join(d, 'run-ok'), '--no-index', '--format', 'json'], d);
    expect(ok.code, ok.stderr).toBe(0);
    expect(statuses(join(d, 'run-ok'))).toEqual({ a: 'passed' });
    // The same spec works as --agent, overriding the suite's agent (here a broken one).
    writeFileSync(join(d, 'suite.yaml'), suite('agents.bot:notFn'));
    const flag = harness(
      [
        'run',
        'suite.yaml',
        '--agent',
        'agents.bot:reply',
        '--out',
        join(d, 'run-flag'),
        '--no-index',
        '--format',
        'json',
      ],
      d,
    );
    expect(flag.code, flag.stderr).toBe(0);
    expect(statuses(join(d, 'run-flag'))).toEqual({ a: 'passed' });
  }, 120_000);

  it('an origin option with no equivalent fails with one sentence saying what to write instead', () => {
    const d = tmp();
    writeFileSync(
      join(d, 'suite.yaml'),
      'version: "1.0"\nname: m\nagent:\n  adapter: mock\n  config:\n    should_error: true\ntests: [{ id: a, name: a, input: x }]\n',
    );
    const r = harness(['validate', 'suite.yaml'], d);
    expect(r.code).toBe(2);
    const out = r.stderr + r.stdout;
    expect(out).toMatch(/suite\.yaml:6:\d+: agent\.config\.should_error: 'should_error' has no equivalent here/);
    expect(out).toContain(
      "make a response fail instead: responses: [{ input: '...', error: 'Mock execution failure' }]",
    );
  }, 60_000);
});

describe('origin result files', () => {
  it('an origin result file compares against a harness run and exports', () => {
    const dir = join(tmp(), 'run');
    expect(
      harness(['run', 'examples/basic/benchmark.yaml', '--out', dir, '--no-index', '--format', 'json'], root).code,
    ).toBe(0);
    const r = harness(
      ['compare', 'examples/basic/v1_baseline.json', dir, '--format', 'json', '--fail-on-regression'],
      root,
    );
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.baseline_id).toBe('c14aae1f');
    expect(c.common_tests).toBe(5); // paired on test_case.id
    expect(c.still_failing_tests).toEqual(['unknown-05#0']);
    expect(c.deltas.success_rate).toMatchObject({ v1_value: 0.8, v2_value: 0.8, is_regression: false });
    expect(c.deltas.latency).toMatchObject({ direction: 'lower_is_better', v1_formatted: '0.19s' });
    // The degenerate direction: the harness run as baseline, a worse origin file as candidate, is a regression.
    const worse = JSON.parse(readFileSync(join(root, 'examples/basic/v1_baseline.json'), 'utf8'));
    for (const res of worse.results) res.passed = false;
    worse.metrics.success_rate.value = 0;
    const worseFile = join(tmp(), 'worse.json');
    writeFileSync(worseFile, JSON.stringify(worse));
    const w = JSON.parse(harness(['compare', dir, worseFile, '--format', 'json'], root).stdout);
    expect(w.newly_failed_tests).toHaveLength(4);
    expect(w.deltas.success_rate.is_regression).toBe(true);

    const md = harness(['export', 'examples/basic/v1_baseline.json', '--format', 'markdown'], root);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/# Evaluation Report: basic-support-benchmark/);
    expect(md.stdout).toMatch(/\*\*Passed\*\*: 4 \(80\.0%\)/);
  }, 120_000);

  it('a file that is no experiment at all is exit 2 (not 3), naming the file', () => {
    const d = tmp();
    writeFileSync(join(d, 'package.json'), '{"name": "not-a-run"}');
    writeFileSync(join(d, 'broken.json'), '{ nope');
    // Shaped like an origin result file, but a case id is a number: named by field path, still exit 2.
    writeFileSync(
      join(d, 'origin-bad.json'),
      JSON.stringify({ id: 'x', name: 'n', timestamp: '2026-01-01T00:00:00Z', results: [{ test_case: { id: 5 } }] }),
    );
    for (const args of [
      ['compare', 'package.json', 'package.json'],
      ['export', 'package.json', '--format', 'json'],
      ['compare', 'broken.json', 'package.json'],
    ]) {
      const r = harness(args, d);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/(package|broken)\.json: not (an experiment|valid JSON)/);
    }
    const bad = harness(['export', 'origin-bad.json', '--format', 'json'], d);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/origin-bad\.json: results\.0\.test_case\.id: expected a string/);
  }, 60_000);
});

describe('harness migrate', () => {
  it('rewrites the seed example in the current format, keeping comments, and the result runs the same', () => {
    const d = tmp();
    writeFileSync(join(d, 'package.json'), '{}');
    mkdirSync(join(d, 'examples/basic'), { recursive: true });
    writeFileSync(join(d, 'examples/basic/mock_agent.ts'), readFileSync(join(root, 'examples/basic/mock_agent.ts')));
    const seed = [
      '# Support suite, seed format',
      'version: "1.0"',
      'name: "customer-support-eval"',
      'agent:',
      '  adapter: generic',
      '  # the agent under test',
      '  module: "examples.basic.mock_agent:support_agent"',
      '  config: {}',
      'thresholds:',
      '  success_rate:',
      '    min: 0.80 # at least 4 of 5',
      'tests:',
      '  - id: "refund-001"',
      '    name: "refund_intent"',
      '    input: "Please refund my order."',
      '    expected: "Refund of $49.99 processed"',
      '    evaluators:',
      '      - name: contains # substring check',
      '        options:',
      '          substring: "Refund of $49.99 processed"',
    ].join('\n');
    writeFileSync(join(d, 'old.yaml'), seed);
    const r = harness(['migrate', 'old.yaml', '--out', 'new.yaml'], d);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rewrote agent\.options, thresholds\.success_rate\.minimum.*valid/);
    const text = readFileSync(join(d, 'new.yaml'), 'utf8');
    expect(text).toContain('# Support suite, seed format');
    expect(text).toContain('# the agent under test');
    expect(text).toContain('minimum: 0.80 # at least 4 of 5');
    expect(text).toContain('- name: contains # substring check');
    expect(text).toMatch(
      /agent:\n {2}adapter: generic\n {2}options:\n(.*\n)? {4}module: "examples\.basic\.mock_agent:support_agent"/,
    );
    expect(text).not.toMatch(/^\s+config:/m);
    expect(text).not.toMatch(/\bmin:/);
    const run = harness(['run', 'new.yaml', '--out', 'run', '--no-index', '--format', 'json'], d);
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(join(d, 'run'))).toEqual({ 'refund-001': 'passed' });
    // Already current: nothing to rewrite; not a suite: exit 2.
    expect(harness(['migrate', 'new.yaml'], d).stderr).toMatch(/already in the current format; valid/);
    writeFileSync(join(d, 'bad.yaml'), 'a: [1, 2\n');
    expect(harness(['migrate', 'bad.yaml'], d).code).toBe(2);
  }, 120_000);
});
