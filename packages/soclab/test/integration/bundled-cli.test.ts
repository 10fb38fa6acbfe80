import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StudyResult } from '../../src/campaign/study.js';
import { smallStudy } from '../helpers/report-fixtures.js';
import { scratchEvidence } from '../helpers/scratch.js';

// The soclab bin runs the CommonJS copy of its bundle (dist/bundle/cli.cjs) through V8's code cache for short
// commands while the bundles are fresh (scripts/build-bundles.mjs, scripts/code-cache-loader.mjs).
const root = resolve(__dirname, '../../../..');
const bundleDir = join(root, 'packages/soclab/dist/bundle');
const cacheDir = join(bundleDir, 'cache');
const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const built = ['soclab', 'harness', 'models'].map((p) => mtime(join(root, `packages/${p}/dist/.tsbuildinfo`)));
const cached =
  mtime(join(bundleDir, 'cli.cjs')) >= mtime(join(bundleDir, 'cli.js')) &&
  mtime(join(bundleDir, 'cli.js')) >= Math.max(...built);
if (!cached && process.env.CI)
  throw new Error('the soclab bundles are missing or older than the tsc builds: npm run build');
if (!cached) console.warn('skipping soclab code-cache tests: the bundles are missing or stale (npm run build)');

describe.skipIf(!cached)('soclab bin: the CommonJS bundle with a V8 code cache', () => {
  it('`soclab policy test` (Cedar, the policy folder, the test table) answers alike with the cache missing, written, and corrupt', () => {
    const cli = statSync(join(bundleDir, 'cli.cjs'));
    const cacheFile = `policy-${process.version}-${process.arch}-${cli.size}-${Math.trunc(cli.mtimeMs)}.v8`;
    const outputs: string[] = [];
    for (const state of ['missing', 'written', 'corrupt']) {
      if (state === 'missing') rmSync(join(cacheDir, cacheFile), { force: true });
      if (state === 'corrupt') writeFileSync(join(cacheDir, cacheFile), 'not V8 data');
      const r = spawnSync(process.execPath, [join(root, 'packages/soclab/bin/soclab.js'), 'policy', 'test'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CI: '', SOCLAB_DEBUG: '', SOCLAB_POLICY_DIR: '' },
        timeout: 60_000,
      });
      expect(r.stderr, state).not.toMatch(/Warning|Error/);
      expect(r.status, state).toBe(0);
      expect(r.stdout, state).toMatch(/^[1-9]\d* passed, 0 failed \(/m);
      outputs.push(r.stdout);
      // Written at the first run's exit, rewritten over corrupt data.
      expect(existsSync(join(cacheDir, cacheFile)), state).toBe(true);
      expect(statSync(join(cacheDir, cacheFile)).size, state).toBeGreaterThan(100_000);
    }
    expect(new Set(outputs).size).toBe(1);
  });
});

describe.skipIf(!cached)('soclab bin: the report renderer inside the CommonJS bundle', () => {
  const scratch = scratchEvidence('soclab-bundled-react-');
  let study: StudyResult;
  beforeAll(async () => {
    study = await smallStudy(join(scratch.dir, 'study'), scratch.evidence);
  });
  /** A report command through the bin (the bundle) or the tsc output, and the node_modules files it loaded. */
  const report = (entry: 'bin' | 'tsc', args: string[], nodeEnv?: string) => {
    const loadedFile = join(scratch.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
    const preload = join(scratch.dir, 'loaded.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_FILE, Object.keys(require.cache).join('\\n')));`,
    );
    const main = entry === 'bin' ? 'packages/soclab/bin/soclab.js' : 'packages/soclab/dist/cli/main.js';
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', SOCLAB_DEBUG: '', LOADED_FILE: loadedFile };
    if (nodeEnv === undefined) delete env.NODE_ENV;
    else env.NODE_ENV = nodeEnv;
    const r = spawnSync(process.execPath, ['--require', preload, join(root, main), 'report', ...args], {
      cwd: root,
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const loaded = readFileSync(loadedFile, 'utf8').split('\n');
    return { stdout: r.stdout, react: loaded.filter((m) => /[/\\]node_modules[/\\]react(-dom)?[/\\]/.test(m)) };
  };

  it('renders the same bytes as the tsc build, escaping hostile text, with no React loaded from node_modules', () => {
    const card = study.reports.baseline?.scorecard ?? '';
    for (const audience of ['technical', 'executive']) {
      const args = [card, '--format', 'html', '--audience', audience];
      const fromTsc = report('tsc', args);
      const fromBundle = report('bin', args);
      // Degenerate check first: the tsc build loads React's production renderer from node_modules.
      expect(fromTsc.react.some((m) => m.endsWith('react-dom-server-legacy.node.production.js'))).toBe(true);
      expect(fromBundle.react).toEqual([]);
      expect(fromBundle.stdout).toBe(fromTsc.stdout);
      expect(fromBundle.stdout).toMatch(/^<!DOCTYPE html><html lang="en">/);
    }
    const technical = report('bin', [card, '--format', 'html', '--audience', 'technical']).stdout;
    expect(technical).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(technical).not.toMatch(/<script|<img/i);
  });

  it('evaluates React only to render HTML, and takes it from node_modules when NODE_ENV is development', () => {
    const card = study.reports.main.scorecard;
    // Under NODE_ENV=development the bundle's React modules require React's development build from node_modules,
    // so what they evaluate, and when, shows in the loaded files (production takes the same path inside the bundle).
    const html = report('bin', [card, '--format', 'html'], 'development');
    expect(html.react.some((m) => m.endsWith('react-dom-server-legacy.node.development.js'))).toBe(true);
    expect(html.react.some((m) => m.endsWith('react.development.js'))).toBe(true);
    // The text summary shares the reports' building blocks (the JSX runtime, which React's development build needs)
    // but renders no element: no renderer is evaluated.
    const text = report('bin', [card, '--format', 'text'], 'development');
    expect(text.stdout).toContain('Should this agent get operational authority?');
    expect(text.react.some((m) => m.endsWith('react-jsx-runtime.development.js'))).toBe(true);
    expect(text.react.filter((m) => /[/\\]react-dom[/\\]/.test(m))).toEqual([]);
  });
});
