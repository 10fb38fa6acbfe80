import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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
