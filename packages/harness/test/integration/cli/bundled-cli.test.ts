import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The bundled CLI (scripts/build-bundles.mjs, built by `npm run build` and pretest) inlines the harness. A plugin
// that imports '@aeh/harness' must still register into the CLI's own registries, and errors must still point
// at the TypeScript sources.
const root = resolve(__dirname, '../../../../..');
const bundle = join(root, 'packages/harness/dist/bundle/cli.js');
const fixtures = join(root, 'packages/harness/test/fixtures/plugins');
const built = existsSync(bundle);
if (!built && process.env.CI) throw new Error(`${bundle} is missing: npm run build (or pretest) builds it`);
if (!built) console.warn(`skipping bundled-CLI tests: ${bundle} is missing (run node scripts/build-bundles.mjs)`);

const scratchDirs: string[] = [];
afterAll(() => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});
/** A temporary folder for one test, removed after the file's tests. */
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-bundle-'));
  scratchDirs.push(d);
  return d;
}

function runBundle(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--enable-source-maps', bundle, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!built)('bundled harness CLI', () => {
  it('plugins that import @aeh/harness (JS and TypeScript) register into the CLI’s own registries', () => {
    const d = scratch();
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"
name: bundled-plugins
plugins: [${join(fixtures, 'local-plugin.ts')}, ${join(fixtures, 'bundle-identity-plugin.mjs')}]
agent: { adapter: echo }
evaluators: [{ name: t_local_plugin, options: { n: 3 } }, t_bundle_identity]
tests: [{ id: a, input: hi }]
`,
    );
    const r = runBundle(['run', 'suite.yaml', '--out', 'out', '--format', 'json'], d);
    expect(r.stderr).not.toMatch(/unknown evaluator/);
    expect(r.code).toBe(0);
    const exp = JSON.parse(readFileSync(join(d, 'out/experiment.json'), 'utf8'));
    expect(exp.results[0].evaluations).toEqual([
      expect.objectContaining({ evaluator: 't_local_plugin', details: { n: 3 } }),
      expect.objectContaining({ evaluator: 't_bundle_identity', details: { seesTypeScriptPlugin: true } }),
    ]);
  });

  it('an unknown plugin name still gets the did-you-mean error, exit 2', () => {
    const d = scratch();
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"\nname: typo\nagent: { adapter: echo }\nevaluators: [exact_matc]\ntests: [{ id: a, input: hi }]\n`,
    );
    const r = runBundle(['run', 'suite.yaml', '--out', 'out'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did you mean 'exact_match'/);
  });

  it('validation messages are zod’s English ones (the bundle keeps only the English locale), exit 2', () => {
    const d = scratch();
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"\nname: 5\nagent: { adapter: echo }\nevaluators: [exact_match]\ntests: [{ id: a, input: hi }]\n`,
    );
    const r = runBundle(['run', 'suite.yaml', '--out', 'out'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/suite\.yaml:2:7: name: Invalid input: expected string, received number/);
  });

  // The harness bundle lets each zod object schema compile its fast parser only on its 17th parse
  // (scripts/build-bundles.mjs): results and messages must be those of the tsc output, which always compiles it.
  it('a 40-case run and its validation errors, before and after zod compiles its parsers, equal the tsc output', () => {
    const d = scratch();
    const cases = Array.from({ length: 40 }, (_, i) => ({
      id: `c${i}`,
      input: i % 3 === 0 ? { text: `question ${i}`, n: i } : `question ${i}`,
      expected: i % 2 === 0 ? `${i}` : 'nothing',
      tags: i % 5 === 0 ? ['five'] : undefined,
      metadata: { i, extra: null },
    }));
    writeFileSync(join(d, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n'));
    const suite = (tests: string) =>
      `version: "1.0"\nname: forty\nagent: { adapter: echo }\nevaluators: [contains, { name: exact_match, weight: 2 }]\nmetrics: [success_rate, error_rate]\ntests: ${tests}\n`;
    writeFileSync(join(d, 'suite.yaml'), suite('file://cases.jsonl'));
    const tsc = join(root, 'packages/harness/dist/cli/main.js');
    const run = (cli: string[], out: string) =>
      spawnSync(process.execPath, [...cli, 'run', 'suite.yaml', '--out', out, '--no-index', '--format', 'json'], {
        cwd: d,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CI: '' },
        timeout: 60_000,
      });
    const bin = join(root, 'packages/harness/bin/harness.js');
    expect(run([bin], 'bundled').status).toBe(0);
    expect(run([tsc], 'tsc').status).toBe(0);
    const volatile =
      /"(id|started_at|finished_at|duration|latency|path|value|formatted_value|lower|upper)":("[^"]*"|[-\d.e]+|null)/g;
    const journal = (out: string) => readFileSync(join(d, out, 'journal.jsonl'), 'utf8').replace(volatile, '');
    expect(journal('bundled')).toContain('"test_id":"c39"');
    expect(journal('bundled')).toBe(journal('tsc'));
    // Invalid cases early (interpreted parser) and late (compiled parser) in one file.
    const bad = cases.map((c, i) => (i === 2 || i === 30 ? { ...c, input: 7, repeat: 'x' } : c));
    writeFileSync(join(d, 'cases.jsonl'), bad.map((c) => JSON.stringify(c)).join('\n'));
    const [fromBundle, fromTsc] = [run([bin], 'bad-bundled'), run([tsc], 'bad-tsc')];
    expect(fromBundle.status).toBe(2);
    expect(fromBundle.stderr).toMatch(/cases\.jsonl:3:/);
    expect(fromBundle.stderr).toMatch(/cases\.jsonl:31:/);
    expect(fromBundle.stderr).toBe(fromTsc.stderr);
  });

  it('stack traces name the TypeScript sources through the source maps', () => {
    const d = scratch();
    // A module adapter whose file throws when loaded: a runtime error (exit 3) with HARNESS_DEBUG printing the stack.
    writeFileSync(join(d, 'agent.mjs'), "throw new Error('agent module failed to load');\n");
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"\nname: trace\nagent: { adapter: module, options: { module: ./agent.mjs } }\nevaluators: [exact_match]\ntests: [{ id: a, input: hi }]\n`,
    );
    const r = runBundle(['run', 'suite.yaml', '--out', 'out'], d, { HARNESS_DEBUG: '1' });
    expect(r.stderr).toMatch(/agent module failed to load/);
    expect(r.stderr).toMatch(/packages\/harness\/src\/[\w/-]+\.ts:\d+:\d+/);
    expect(r.stderr).not.toMatch(/dist\/bundle\/[\w-]+\.js:\d+/);
  });

  it('the bin turns the source maps on for HARNESS_DEBUG, the only time the CLI prints a stack', () => {
    const d = scratch();
    writeFileSync(join(d, 'agent.mjs'), "throw new Error('agent module failed to load');\n");
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"\nname: trace\nagent: { adapter: module, options: { module: ./agent.mjs } }\nevaluators: [exact_match]\ntests: [{ id: a, input: hi }]\n`,
    );
    const bin = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        [join(root, 'packages/harness/bin/harness.js'), 'run', 'suite.yaml', '--out', 'out'],
        {
          cwd: d,
          encoding: 'utf8',
          env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
          timeout: 60_000,
        },
      );
    const debug = bin({ HARNESS_DEBUG: '1' });
    expect(debug.status).toBe(2);
    expect(debug.stderr).toMatch(/packages\/harness\/src\/[\w/-]+\.ts:\d+:\d+/);
    const quiet = bin({ HARNESS_DEBUG: '' });
    expect(quiet.status).toBe(2);
    expect(quiet.stderr).toMatch(/agent module failed to load/);
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
  });
});

// The bin runs the CommonJS copy of the bundle (cli.cjs) through V8's code cache while both bundles are fresh.
const bin = join(root, 'packages/harness/bin/harness.js');
const cacheDir = join(root, 'packages/harness/dist/bundle/cache');
const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const cached =
  mtime(join(root, 'packages/harness/dist/bundle/cli.cjs')) >= mtime(bundle) &&
  mtime(bundle) >=
    Math.max(
      mtime(join(root, 'packages/harness/dist/.tsbuildinfo')),
      mtime(join(root, 'packages/models/dist/.tsbuildinfo')),
    );
if (!cached && process.env.CI) throw new Error('the bundles are missing or older than the tsc builds: npm run build');
if (!cached)
  console.warn('skipping code-cache tests: the bundles are missing or stale (run node scripts/build-bundles.mjs)');

describe.skipIf(!cached)('harness bin: the CommonJS bundle with a V8 code cache', () => {
  it('plugins register into the CLI’s registries with the cache missing, written, corrupt, and from an older build', () => {
    const d = scratch();
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"
name: bundled-plugins
plugins: [${join(fixtures, 'local-plugin.ts')}, ${join(fixtures, 'bundle-identity-plugin.mjs')}]
agent: { adapter: echo }
evaluators: [{ name: t_local_plugin, options: { n: 3 } }, t_bundle_identity]
tests: [{ id: a, input: hi }]
`,
    );
    // run-<node>-<arch>-<bundle size>-<bundle mtime>.v8: the name tells builds apart (V8 checks only the length).
    const cliFile = join(root, 'packages/harness/dist/bundle/cli.cjs');
    const cli = statSync(cliFile);
    let runCache = `run-${process.version}-${process.arch}-${cli.size}-${Math.trunc(cli.mtimeMs)}.v8`;
    const cacheFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.v8')) : []);
    for (const state of ['missing', 'written', 'corrupt', 'rebuilt']) {
      // A rebuilt bundle (here: the same file, a new time) never meets the older build's cache.
      if (state === 'rebuilt') {
        const older = runCache;
        utimesSync(cliFile, cli.atime, new Date(cli.mtimeMs + 1000));
        const rebuilt = statSync(cliFile);
        runCache = `run-${process.version}-${process.arch}-${rebuilt.size}-${Math.trunc(rebuilt.mtimeMs)}.v8`;
        expect(runCache).not.toBe(older);
      }
      // Only this command's cache: other tests' CLI processes may be using theirs.
      if (state === 'missing') rmSync(join(cacheDir, runCache), { force: true });
      if (state === 'corrupt') writeFileSync(join(cacheDir, runCache), 'not V8 data');
      const r = spawnSync(process.execPath, [bin, 'run', 'suite.yaml', '--out', `out-${state}`, '--format', 'json'], {
        cwd: d,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CI: '', HARNESS_DEBUG: '' },
        timeout: 60_000,
      });
      expect(r.stderr, state).not.toMatch(/unknown evaluator|Warning/);
      expect(r.status, state).toBe(0);
      const exp = JSON.parse(readFileSync(join(d, `out-${state}/experiment.json`), 'utf8'));
      expect(exp.results[0].evaluations, state).toEqual([
        expect.objectContaining({ evaluator: 't_local_plugin', details: { n: 3 } }),
        expect.objectContaining({ evaluator: 't_bundle_identity', details: { seesTypeScriptPlugin: true } }),
      ]);
      // Written at the first run's exit, rewritten over corrupt data.
      expect(cacheFiles(), state).toContain(runCache);
      expect(statSync(join(cacheDir, runCache)).size, state).toBeGreaterThan(100_000);
      // Older builds' caches of the command are removed when a new one is written.
      expect(cacheFiles().filter((f) => f.startsWith(`run-${process.version}-${process.arch}-`))).toEqual([runCache]);
    }
  });

  it('ships only the chunks of the current build: each chunk is imported by another file of its bundle', () => {
    // Chunk names carry a content hash; a rebuild must not leave the previous build's chunks behind.
    for (const dir of ['packages/harness/dist/bundle', 'packages/soclab/dist/bundle'].map((d) => join(root, d))) {
      if (!existsSync(dir)) continue;
      const scripts = readdirSync(dir).filter((f) => /\.(c?js)$/.test(f));
      const chunks = scripts.filter((f) => /-[A-Z0-9]{8}\.js$/.test(f));
      expect(chunks.length).toBeGreaterThan(0);
      const referenced = new Set<string>();
      for (const f of scripts) {
        for (const m of readFileSync(join(dir, f), 'latin1').matchAll(/[\w.-]+-[A-Z0-9]{8}\.js/g)) referenced.add(m[0]);
      }
      expect(chunks.filter((c) => !referenced.has(c))).toEqual([]);
    }
  });
});
