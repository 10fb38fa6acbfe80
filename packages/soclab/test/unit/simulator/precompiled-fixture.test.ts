import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/contracts/canonical.js';
import { precompileFixture } from '../../../src/precompile/build.js';
import { FixtureError } from '../../../src/simulator/errors.js';
import { FIXTURE_DIR, type Fixture, fixturePath, loadFixture, readFixture } from '../../../src/simulator/fixture.js';
import { precompiledFixture } from '../../../src/simulator/precompiled-fixture.js';

/**
 * Precompiled fixtures: the build writes each bundled fixture's validated data as an artifact keyed by the file's
 * digest; a load reads it only for exactly that text, and gets what the full load gives (value and key order).
 */

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** A copy of a bundled fixture and a fresh artifact folder holding its artifact (compiled by the build step). */
function compiledCopy(name = 'identity_compromise'): { path: string; artifacts: string; artifact: string } {
  const path = join(temporaryDir('soclab-pp-fixture-'), `${name}.json`);
  copyFileSync(fixturePath(name), path);
  const artifacts = temporaryDir('soclab-pp-artifacts-');
  return { path, artifacts, artifact: join(artifacts, precompileFixture(path, artifacts)) };
}

/** Everything a caller reads from a fixture, serialised with its key order. */
const contents = (f: Fixture) => JSON.stringify(f);

describe('precompiled fixtures', () => {
  it('a fixture read through its artifact is exactly the fully loaded one, for every bundled fixture', () => {
    for (const name of ['identity_compromise', 'oauth_consent_phishing']) {
      const { path, artifacts } = compiledCopy(name);
      const digest = sha256Hex(readFileSync(path, 'utf8'));
      // Degenerate check first: the artifact is there and is used.
      expect('compiled' in precompiledFixture(digest, artifacts)).toBe(true);
      const fromArtifact = readFixture(path, artifacts);
      const full = readFixture(path, null);
      expect(fromArtifact).toEqual(full);
      expect(contents(fromArtifact)).toBe(contents(full));
      expect(Object.isFrozen(fromArtifact)).toBe(true);
      expect(fromArtifact.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('the bundled fixtures load as before (name, version, digest of the canonical JSON)', () => {
    const f = loadFixture('identity_compromise');
    expect(f.name).toBe('identity_compromise');
    expect(f.path).toBe(`${FIXTURE_DIR}identity_compromise.json`);
    expect(contents(f)).toBe(contents(readFixture(f.path, null)));
  });

  it('an edited fixture takes the full load and reports its own error', () => {
    const { path, artifacts } = compiledCopy();
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"fixture_version": "', '"fixture_version": "x'));
    expect(readFileSync(path, 'utf8')).not.toBe(text);
    expect(() => readFixture(path, artifacts)).toThrow(FixtureError);
    expect(() => readFixture(path, artifacts)).toThrow(/fixture_version/);
    // A valid edit is loaded from the file, with its new content.
    const edited = JSON.parse(text) as { notice: string };
    edited.notice = 'edited notice';
    writeFileSync(path, JSON.stringify(edited));
    expect(readFixture(path, artifacts).data.notice).toBe('edited notice');
  });

  it('a damaged, reshaped or foreign artifact is ignored and the file is loaded in full', () => {
    const { path, artifacts, artifact } = compiledCopy();
    const digest = sha256Hex(readFileSync(path, 'utf8'));
    const full = contents(readFixture(path, null));
    const envelope = JSON.parse(readFileSync(artifact, 'utf8')) as Record<string, unknown>;
    const rewrite = (change: (e: Record<string, unknown>) => void) => {
      const copy = structuredClone(envelope);
      change(copy);
      writeFileSync(artifact, `${JSON.stringify(copy)}\n`);
    };
    const tampered = (payload: Record<string, unknown>) => (e: Record<string, unknown>) => {
      e.payload = JSON.stringify(payload);
      e.sha256 = sha256Hex(e.payload as string);
    };
    const good = JSON.parse(envelope.payload as string) as Record<string, unknown>;
    const cases: [string, (e: Record<string, unknown>) => void, RegExp][] = [
      ['payload edited without its digest', (e) => (e.payload = `${e.payload as string} `), /digest/],
      ['payload of the wrong shape', tampered({ ...good, data: [] }), /wrong shape/],
      ['content hash not a digest', tampered({ ...good, sha256: 'x' }), /wrong shape/],
      ['key of another text', (e) => (e.key = { ...(e.key as object), sha256: '0'.repeat(64) }), /key differs/],
      ['another kind', (e) => (e.kind = 'corpus'), /holds corpus/],
    ];
    for (const [what, change, why] of cases) {
      rewrite(change);
      const found = precompiledFixture(digest, artifacts);
      expect('rejected' in found ? found.rejected : 'used', what).toMatch(why);
      expect(contents(readFixture(path, artifacts)), what).toBe(full);
    }
    writeFileSync(artifact, 'not json');
    expect(contents(readFixture(path, artifacts))).toBe(full);
  });
});
