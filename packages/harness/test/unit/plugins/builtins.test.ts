// `harness run` evaluates only the built-in plugins a suite names (plugins/builtins.ts, issue 22). The tests in this
// file share one module graph and run in order: first a run that names few plugins, then the full load.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterRegistry } from '../../../src/adapters/base.js';
import { executeRun } from '../../../src/cli/commands/run.js';
import { loadBuiltins } from '../../../src/cli/common.js';
import { evaluatorRegistry } from '../../../src/evaluators/base.js';
import { metricRegistry } from '../../../src/metrics/base.js';
import {
  BUILTIN_ADAPTERS,
  BUILTIN_EVALUATORS,
  BUILTIN_METRICS,
  BUILTIN_REPORTERS,
} from '../../../src/plugins/builtins.js';
import { Registry, UnknownPluginError } from '../../../src/plugins/registry.js';
import { reporterRegistry } from '../../../src/reporters/base.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (suitePath: string, out: string) => ({
  suitePath,
  outDir: join(dir, out),
  runsDir: dir,
  formats: ['json'],
  filter: [],
  thresholds: true,
  progress: false,
  index: false,
});

/** [evaluator, passed] of each evaluation of the run's first case, from its journal. */
function evaluationsOf(out: string): Array<[string, boolean]> {
  const first = readFileSync(join(dir, out, 'journal.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((r) => r.type === 'result');
  return first.result.evaluations.map((e: { evaluator: string; passed: boolean }) => [e.evaluator, e.passed]);
}

describe('Registry with declared built-ins (degenerate cases first)', () => {
  it('an empty registry knows nothing; loading nothing or an unknown name loads nothing', async () => {
    const r = new Registry<{ name: string; description: string; options: never }>('thing');
    await r.load([]);
    await r.load(['nope']);
    expect(r.names()).toEqual([]);
    expect(() => r.get('nope')).toThrow("unknown thing 'nope' (known: none)");
  });

  it('a declared name is known but not loaded until load() names it; a plugin registered first keeps its place', async () => {
    const r = new Registry<{ name: string; description: string; options: never }>('thing');
    const loaded: string[] = [];
    const plugin = (name: string) => ({ name, description: name, options: undefined as never });
    r.declare('Alpha', async () => {
      loaded.push('alpha');
      r.register(plugin('alpha'));
    });
    r.register(plugin('beta'));
    r.declare('beta', async () => loaded.push('beta'));
    expect(r.names()).toEqual(['alpha', 'beta']);
    expect(r.has('alpha')).toBe(false);
    expect(() => r.get('ALPHA')).toThrow("built-in thing 'ALPHA' was not loaded");
    expect(() => r.get('alpah')).toThrow("unknown thing 'alpah'; did you mean 'alpha'? (known: alpha, beta)");
    await r.load(['beta']);
    expect(loaded).toEqual([]);
    await r.load(['ALPHA', 'alpha']);
    expect(loaded).toEqual(['alpha']);
    expect(r.get('alpha').name).toBe('alpha');
    expect(r.list().map((p) => p.name)).toEqual(['alpha', 'beta']);
  });
});

describe('harness run loads only the built-ins its suite names', () => {
  it('a 1-case echo/contains run: the suite runs; no other evaluator, adapter, metric or reporter module is evaluated', async () => {
    writeFileSync(join(dir, 'one.jsonl'), `${JSON.stringify({ id: 'c1', input: 'the answer is 2', expected: '2' })}\n`);
    const suite = join(dir, 'one.yaml');
    writeFileSync(
      suite,
      'version: "1.0"\nname: one\nagent: { adapter: echo }\nevaluators: [contains]\nmetrics: [success_rate]\ntests: file://one.jsonl\n',
    );
    expect(await executeRun(request(suite, 'run-one'))).toBe(0);
    expect(evaluationsOf('run-one')).toEqual([['contains', true]]);
    // Each built-in registers itself when its module is evaluated: registered = evaluated.
    const registered = (r: { has(n: string): boolean }, names: object) => Object.keys(names).filter((n) => r.has(n));
    // exact_match too: the runner's fallback for a case without evaluators.
    expect(registered(evaluatorRegistry, BUILTIN_EVALUATORS)).toEqual(['contains', 'exact_match']);
    expect(registered(adapterRegistry, BUILTIN_ADAPTERS)).toEqual(['echo']);
    expect(registered(metricRegistry, BUILTIN_METRICS)).toEqual(['success_rate']);
    expect(registered(reporterRegistry, BUILTIN_REPORTERS)).toEqual(['json']);
    // The others are still known by name, for "did you mean" and the known list.
    expect(evaluatorRegistry.isDeclared('bleu')).toBe(true);
    expect(() => evaluatorRegistry.get('rouge-l')).toThrow(
      new UnknownPluginError('evaluator', 'rouge-l', Object.keys(BUILTIN_EVALUATORS).sort()).message,
    );
    expect(() => evaluatorRegistry.get('rouge-l')).toThrow("did you mean 'rouge_l'?");
  });

  it("a suite naming no evaluator or metric gets the runner's defaults (exact_match, success_rate), loaded", async () => {
    writeFileSync(join(dir, 'plain.jsonl'), `${JSON.stringify({ id: 'c1', input: 'same', expected: 'same' })}\n`);
    const suite = join(dir, 'plain.yaml');
    writeFileSync(suite, 'version: "1.0"\nname: plain\nagent: { adapter: echo }\ntests: file://plain.jsonl\n');
    expect(await executeRun(request(suite, 'run-plain'))).toBe(0);
    expect(evaluationsOf('run-plain')).toEqual([['exact_match', true]]);
    const experiment = JSON.parse(readFileSync(join(dir, 'run-plain', 'experiment.json'), 'utf8'));
    expect(experiment.metrics.success_rate.value).toBe(1);
    expect(evaluatorRegistry.has('bleu')).toBe(false);
  });

  it('a case file naming a built-in the suite does not still runs it (validated again with every built-in)', async () => {
    writeFileSync(
      join(dir, 'own.jsonl'),
      `${JSON.stringify({ id: 'c1', input: 'hello world', expected: 'hello', evaluators: ['starts_with'] })}\n`,
    );
    const suite = join(dir, 'own.yaml');
    writeFileSync(
      suite,
      'version: "1.0"\nname: own\nagent: { adapter: echo }\nevaluators: [contains]\ntests: file://own.jsonl\n',
    );
    expect(evaluatorRegistry.has('starts_with')).toBe(false);
    expect(await executeRun(request(suite, 'run-own'))).toBe(0);
    expect(evaluationsOf('run-own')).toEqual([['starts_with', true]]);
  });

  it('an unknown name in a suite still gets "did you mean" with every built-in in the known list (exit 2)', async () => {
    const suite = join(dir, 'typo.yaml');
    writeFileSync(
      suite,
      'version: "1.0"\nname: typo\nagent: { adapter: echo }\nevaluators: [starts_wiht]\ntests: file://one.jsonl\n',
    );
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => errors.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const { runCommand } = await import('../../../src/cli/commands/run.js');
      expect(await runCommand(suite, { format: 'json', out: join(dir, 'run-typo'), runsDir: dir } as never)).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    const text = errors.join('');
    expect(text).toContain(
      "typo.yaml:4:14: evaluators.0: unknown evaluator 'starts_wiht'; did you mean 'starts_with'?",
    );
    expect(text).toContain(`(known: ${Object.keys(BUILTIN_EVALUATORS).sort().join(', ')})`);
  });

  it('loading every built-in (list-plugins, validate, the library) registers exactly the catalogue', async () => {
    await loadBuiltins();
    for (const [registry, catalogue] of [
      [evaluatorRegistry, BUILTIN_EVALUATORS],
      [adapterRegistry, BUILTIN_ADAPTERS],
      [metricRegistry, BUILTIN_METRICS],
      [reporterRegistry, BUILTIN_REPORTERS],
    ] as const) {
      const names = Object.keys(catalogue).sort();
      expect(registry.list().map((p) => p.name.toLowerCase())).toEqual(names);
      expect(registry.names()).toEqual(names);
      for (const name of names) expect(registry.isDeclared(name)).toBe(false);
    }
  });
});
