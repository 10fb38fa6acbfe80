import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The built CLI reads the artifacts `npm run build` writes (scripts/precompile-soclab.mjs) for the bundled policy
// folder and corpus, and works the same without them. NODE_DEBUG=soclab makes it say which loads used one.
const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/soclab/bin/soclab.js');
const artifactDir = join(root, 'packages/soclab/dist/precompiled');
const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const built = Math.max(
  ...['soclab', 'harness', 'models'].map((p) => mtime(join(root, `packages/${p}/dist/.tsbuildinfo`))),
);
const artifacts = (): string[] =>
  readdirSync(artifactDir, { withFileTypes: true }).flatMap((e) => (e.isFile() ? [e.name] : []));
let fresh = false;
try {
  const names = artifacts();
  fresh =
    names.some((n) => n.startsWith('policies-')) &&
    names.some((n) => n.startsWith('corpus-')) &&
    names.every((n) => mtime(join(artifactDir, n)) >= built);
} catch {}
if (!fresh && process.env.CI)
  throw new Error('the soclab artifacts are missing or older than the tsc builds: npm run build');
if (!fresh) console.warn('skipping precompiled-artifact CLI tests: artifacts missing or stale (npm run build)');

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function soclab(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      NO_COLOR: '1',
      CI: '',
      SOCLAB_DEBUG: '',
      SOCLAB_POLICY_DIR: '',
      SOCLAB_SCENARIO_DIR: '',
      SOCLAB_INCIDENT: '',
      SOCLAB_TRANSFORMS: '',
      SOCLAB_NO_PRECOMPILED: '',
      NODE_DEBUG: 'soclab',
      ...env,
    },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const used = (stderr: string, kind: 'policies' | 'corpus') =>
  new RegExp(`${kind} .*: from ${artifactDir}/${kind}-[0-9a-f]{64}\\.json`).test(stderr);

describe.skipIf(!fresh)('soclab CLI with precompiled built-in assets', () => {
  it('`soclab policy test` and `soclab scenarios` use the artifacts, and answer alike without them', () => {
    for (const [args, kind] of [
      [['policy', 'test'], 'policies'],
      [['scenarios'], 'corpus'],
    ] as const) {
      const withArtifacts = soclab([...args]);
      const without = soclab([...args], { SOCLAB_NO_PRECOMPILED: '1' });
      expect(withArtifacts.status, args.join(' ')).toBe(0);
      expect(without.status, args.join(' ')).toBe(0);
      expect(used(withArtifacts.stderr, kind), withArtifacts.stderr).toBe(true);
      expect(used(without.stderr, kind), without.stderr).toBe(false);
      expect(withArtifacts.stdout).toBe(without.stdout);
      expect(withArtifacts.stdout).toMatch(
        kind === 'policies' ? /^[1-9]\d* passed, 0 failed \(/m : /ATK-\d{3}.*\n.*BEN-\d{3}/s,
      );
    }
  });

  it('a user policy folder that differs takes the full load and reports file:line:col; a copy of the bundled one is served', () => {
    const broken = mkdtempSync(join(tmpdir(), 'soclab-pp-cli-'));
    scratch.push(broken);
    cpSync(join(root, 'packages/soclab/data/policies'), broken, { recursive: true });
    const copy = soclab(['policy', 'test'], { SOCLAB_POLICY_DIR: broken });
    expect(copy.status).toBe(0);
    expect(used(copy.stderr, 'policies')).toBe(true);
    const deny = join(broken, 'deny.cedar');
    writeFileSync(deny, `${readFileSync(deny, 'utf8')}\nforbid (;\n`);
    const line = readFileSync(deny, 'utf8').split('\n').length - 1;
    const r = soclab(['policy', 'test'], { SOCLAB_POLICY_DIR: broken });
    expect(r.status).toBe(2);
    expect(used(r.stderr, 'policies')).toBe(false);
    expect(r.stderr).toContain(`${deny}:${line}:9: unexpected token`);
  });

  it('SOCLAB_NO_PRECOMPILED naming a folder of forged artifacts turns artifacts off and never reads that folder', () => {
    // A forged artifact under the bundled policy folder's own file name, with a wrong test-table result baked in.
    const forged = mkdtempSync(join(tmpdir(), 'soclab-pp-forged-'));
    scratch.push(forged);
    const name = artifacts().find((n) => n.startsWith('policies-')) as string;
    writeFileSync(join(forged, name), readFileSync(join(artifactDir, name), 'utf8').replaceAll('"deny"', '"allow"'));
    for (const value of [forged, `${forged}/`, '0', 'false']) {
      const r = soclab(['policy', 'test'], { SOCLAB_NO_PRECOMPILED: value });
      expect(r.status, value).toBe(0);
      expect(r.stderr, value).not.toContain(forged);
      expect(used(r.stderr, 'policies'), value).toBe(false);
      expect(r.stdout, value).toMatch(/^[1-9]\d* passed, 0 failed \(/m);
    }
  });
});
