import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../src/contracts/canonical.js';
import { CedarPolicyEngine } from '../../../../src/control/policy/cedar-engine.js';
import { PolicyLoadError } from '../../../../src/control/policy/engine.js';
import { BUNDLED_POLICY_DIR, readPolicyFolder } from '../../../../src/control/policy/folder.js';
import { precompiledPolicyFolder } from '../../../../src/control/policy/precompiled.js';
import { loadPolicyTestTable, runPolicyTestTable } from '../../../../src/control/policy/test-table.js';
import { PRECOMPILED_DIR, precompiledDirFor } from '../../../../src/precompile/artifacts.js';
import { precompilePolicyFolder } from '../../../../src/precompile/build.js';
import { temporaryDirs } from '../../../helpers/temporary-dirs.js';

const temporaryDir = temporaryDirs();

/** A writable copy of the bundled policy folder. */
function policyCopy(): string {
  const dir = temporaryDir('soclab-pp-policy-');
  cpSync(BUNDLED_POLICY_DIR, dir, { recursive: true });
  return dir;
}

/** A copy of the bundled folder and a fresh artifact folder holding its artifact (compiled by the build step). */
function compiledCopy(): { dir: string; artifacts: string; artifact: string } {
  const dir = policyCopy();
  const artifacts = temporaryDir('soclab-pp-artifacts-');
  const name = precompilePolicyFolder(dir, artifacts);
  return { dir, artifacts, artifact: join(artifacts, name) };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`test setup: ${from} not found in ${file}`);
  writeFileSync(file, text.replace(from, to));
}

/** Rewrite an artifact's envelope, recomputing its payload digest (a well-formed artifact with other contents). */
function rewrite(file: string, change: (envelope: Record<string, unknown>, payload: Record<string, unknown>) => void) {
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const payload = JSON.parse(envelope.payload as string) as Record<string, unknown>;
  change(envelope, payload);
  envelope.payload = JSON.stringify(payload);
  envelope.sha256 = sha256Hex(envelope.payload as string);
  writeFileSync(file, JSON.stringify(envelope));
}

const cases = loadPolicyTestTable(BUNDLED_POLICY_DIR);

describe('precompiled policy folder', () => {
  it('a folder with no artifact, or with artifacts turned off, is compiled from its files', () => {
    const dir = policyCopy();
    const empty = temporaryDir('soclab-pp-empty-');
    expect(CedarPolicyEngine.load({ dir, precompiledDir: empty }).compiledFrom).toBe('files');
    expect(CedarPolicyEngine.load({ dir, precompiledDir: null }).compiledFrom).toBe('files');
    expect(CedarPolicyEngine.load({ dir, precompiledDir: join(empty, 'missing') }).compiledFrom).toBe('files');
  });

  it('is used when its key matches, and decides exactly as the compiled folder (positions point into the folder)', async () => {
    const { dir, artifacts } = compiledCopy();
    const fromArtifact = CedarPolicyEngine.load({ dir, precompiledDir: artifacts });
    const fromFiles = CedarPolicyEngine.load({ dir, precompiledDir: null });
    expect(fromArtifact.compiledFrom).toBe('artifact');
    expect(fromFiles.compiledFrom).toBe('files');
    expect([...fromArtifact.policies.entries()]).toEqual([...fromFiles.policies.entries()]);
    // Key order too: `soclab policy` prints these objects as JSON.
    expect(JSON.stringify([...fromArtifact.policies])).toBe(JSON.stringify([...fromFiles.policies]));
    for (const meta of fromArtifact.policies.values())
      expect(meta.source).toMatch(new RegExp(`^${dir}/\\w+\\.cedar:\\d+:\\d+$`));
    expect(fromArtifact.version).toBe(fromFiles.version);
    const a = await runPolicyTestTable(fromArtifact, cases, dir);
    const b = await runPolicyTestTable(fromFiles, cases, dir);
    expect(a.failed).toBe(0);
    expect(a.total).toBe(cases.length);
    expect(a.results.map((r) => r.actual)).toEqual(b.results.map((r) => r.actual));
  });

  it('an edited policy file with a stale artifact takes the full load and reports its own errors with positions', () => {
    const { dir, artifacts } = compiledCopy();
    // A valid edit: the new reason code shows, so the artifact's old one was not served.
    edit(join(dir, 'deny.cedar'), '@reason("', '@reason("edited_');
    const engine = CedarPolicyEngine.load({ dir, precompiledDir: artifacts });
    expect(engine.compiledFrom).toBe('files');
    expect([...engine.policies.values()].some((m) => m.reason.startsWith('edited_'))).toBe(true);
    // An invalid edit: the error names the file, line and column.
    const broken = compiledCopy();
    writeFileSync(
      join(broken.dir, 'deny.cedar'),
      `${readFileSync(join(broken.dir, 'deny.cedar'), 'utf8')}\nforbid (;\n`,
    );
    const lines = readFileSync(join(broken.dir, 'deny.cedar'), 'utf8').split('\n').length;
    let error: unknown;
    try {
      CedarPolicyEngine.load({ dir: broken.dir, precompiledDir: broken.artifacts });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyLoadError);
    expect((error as PolicyLoadError).message).toContain(`${join(broken.dir, 'deny.cedar')}:${lines - 1}:`);
  });

  it('an edited schema or manifest also takes the full load', () => {
    const { dir, artifacts } = compiledCopy();
    edit(join(dir, 'manifest.json'), '"version": "', '"version": "edited-');
    const engine = CedarPolicyEngine.load({ dir, precompiledDir: artifacts });
    expect(engine.compiledFrom).toBe('files');
    expect(engine.version).toMatch(/^edited-/);
  });

  const damaged: [string, (file: string) => void, RegExp][] = [
    ['missing', (f) => rmSync(f), /no artifact/],
    ['empty', (f) => writeFileSync(f, ''), /not JSON/],
    ['truncated', (f) => writeFileSync(f, readFileSync(f, 'utf8').slice(0, 5000)), /not JSON/],
    ['not an artifact', (f) => writeFileSync(f, '{"hello":"world"}'), /not a format 1 artifact/],
    ['of a future format', (f) => rewrite(f, (e) => Object.assign(e, { format: 2 })), /not a format 1 artifact/],
    ['of another kind', (f) => rewrite(f, (e) => Object.assign(e, { kind: 'corpus' })), /holds corpus/],
    [
      'with a payload edited after the build',
      (f) => writeFileSync(f, readFileSync(f, 'utf8').replace('unknown_tool', 'unknown_tooL')),
      /does not match its digest/,
    ],
    [
      'compiled by another Cedar',
      (f) => rewrite(f, (e) => Object.assign(e.key as object, { cedar: '0.0.1' })),
      /key differs/,
    ],
    [
      'of another soclab version',
      (f) => rewrite(f, (e) => Object.assign(e.key as object, { soclab: '9.9.9' })),
      /key differs/,
    ],
    [
      'with a payload of the wrong shape',
      (f) => rewrite(f, (_e, p) => Object.assign(p, { policies: [{ id: 1 }] })),
      /wrong shape/,
    ],
    [
      'naming a policy file outside the folder',
      (f) =>
        rewrite(f, (_e, p) => {
          (p.policies as { file: string }[])[0]!.file = 'other.cedar';
        }),
      /cannot/,
    ],
    [
      'with a forbid policy that allows',
      (f) =>
        rewrite(f, (_e, p) => {
          const forbid = (p.policies as { effect: string; decision: string }[]).find((x) => x.effect === 'forbid');
          forbid!.decision = 'allow';
        }),
      /decision its effect cannot/,
    ],
    ['with no policies', (f) => rewrite(f, (_e, p) => Object.assign(p, { policies: [] })), /no policies/],
  ];
  for (const [what, damage, reason] of damaged) {
    it(`an artifact ${what} is not used: the full load gives the same engine`, async () => {
      const { dir, artifacts, artifact } = compiledCopy();
      damage(artifact);
      const found = precompiledPolicyFolder(readPolicyFolder(dir), artifacts);
      expect('rejected' in found && found.rejected).toMatch(reason);
      const engine = CedarPolicyEngine.load({ dir, precompiledDir: artifacts });
      expect(engine.compiledFrom).toBe('files');
      expect((await runPolicyTestTable(engine, cases, dir)).failed).toBe(0);
    });
  }

  it('a Cedar text that does not preparse falls back to the full load', () => {
    const { dir, artifacts, artifact } = compiledCopy();
    rewrite(artifact, (_e, p) => {
      (p.policies as { text: string }[])[0]!.text = 'permit (;';
    });
    expect('compiled' in precompiledPolicyFolder(readPolicyFolder(dir), artifacts)).toBe(true);
    expect(CedarPolicyEngine.load({ dir, precompiledDir: artifacts }).compiledFrom).toBe('files');
  });

  it("an artifact compiled from another folder's files is never used for this folder, even under its name", () => {
    const { dir, artifacts } = compiledCopy();
    const ownName = readdirSync(artifacts)[0] as string;
    // Another folder (one reason code changed) compiled into the same artifact folder, then moved over this
    // folder's artifact: its key names the other folder's digest.
    const other = policyCopy();
    edit(join(other, 'permit.cedar'), '@reason("', '@reason("tampered_');
    const otherName = precompilePolicyFolder(other, artifacts);
    expect(otherName).not.toBe(ownName);
    writeFileSync(join(artifacts, ownName), readFileSync(join(artifacts, otherName)));
    const found = precompiledPolicyFolder(readPolicyFolder(dir), artifacts);
    expect('rejected' in found && found.rejected).toMatch(/key differs/);
    const engine = CedarPolicyEngine.load({ dir, precompiledDir: artifacts });
    expect(engine.compiledFrom).toBe('files');
    expect([...engine.policies.values()].some((m) => m.reason.startsWith('tampered_'))).toBe(false);
  });

  it('SOCLAB_NO_PRECOMPILED turns the build artifacts off; its value is never read as a folder', () => {
    expect(precompiledDirFor(undefined, {})).toBe(PRECOMPILED_DIR);
    expect(precompiledDirFor(undefined, { SOCLAB_NO_PRECOMPILED: '' })).toBe(PRECOMPILED_DIR);
    for (const value of ['1', '0', 'false', '/tmp', '../dist/precompiled', PRECOMPILED_DIR, ' ', 'x\u0000y']) {
      expect(precompiledDirFor(undefined, { SOCLAB_NO_PRECOMPILED: value }), value).toBeNull();
    }
    // An explicit folder (or null) is the caller's choice either way.
    expect(precompiledDirFor('/x', { SOCLAB_NO_PRECOMPILED: '1' })).toBe('/x');
    expect(precompiledDirFor(null, {})).toBeNull();
  });
});
