import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/contracts/canonical.js';
import { precompileCorpus } from '../../../src/precompile/build.js';
import {
  BUNDLED_SCENARIO_DIR,
  clearScenarioCache,
  corpusFolderInputs,
  DEFAULT_INCIDENT,
  type LoadCorpusOptions,
  loadCorpus,
  type ScenarioCorpus,
  ScenarioLoadError,
} from '../../../src/scenarios/loader.js';
import { precompiledCorpus } from '../../../src/scenarios/precompiled.js';
import { temporaryDirs } from '../../helpers/temporary-dirs.js';

const temporaryDir = temporaryDirs();
afterEach(() => clearScenarioCache());

/** A copy of the bundled corpus and a fresh artifact folder holding its artifact (compiled by the build step). */
function compiledCopy(incident = DEFAULT_INCIDENT): { dir: string; artifacts: string; artifact: string } {
  const dir = temporaryDir('soclab-pp-corpus-');
  cpSync(BUNDLED_SCENARIO_DIR, dir, { recursive: true });
  const artifacts = temporaryDir('soclab-pp-artifacts-');
  const name = precompileCorpus(dir, incident, artifacts);
  clearScenarioCache();
  return { dir, artifacts, artifact: join(artifacts, name) };
}

/** The copy alone (no bundled folder, no environment), with or without artifacts. */
const load = (dir: string, precompiledDir: string | null, more: LoadCorpusOptions = {}): ScenarioCorpus => {
  clearScenarioCache();
  return loadCorpus({ dir, bundled: false, transforms: null, incident: DEFAULT_INCIDENT, precompiledDir, ...more });
};

/** Everything a run reads from a corpus. */
const contents = (c: ScenarioCorpus) => ({
  incident: c.incident,
  attacks: c.attacks,
  benign: c.benign,
  all: c.all,
  sources: [...c.sources],
  dirs: c.dirs,
});

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`test setup: ${from} not found in ${file}`);
  writeFileSync(file, text.replace(from, to));
}

function rewrite(file: string, change: (envelope: Record<string, unknown>, payload: Record<string, unknown>) => void) {
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const payload = JSON.parse(envelope.payload as string) as Record<string, unknown>;
  change(envelope, payload);
  envelope.payload = JSON.stringify(payload);
  envelope.sha256 = sha256Hex(envelope.payload as string);
  writeFileSync(file, JSON.stringify(envelope));
}

describe('precompiled scenario corpus', () => {
  it('a corpus with no artifact, or with artifacts turned off, is loaded from its files', () => {
    const { dir } = compiledCopy();
    expect(load(dir, temporaryDir('soclab-pp-empty-')).loadedFrom).toBe('files');
    expect(load(dir, null).loadedFrom).toBe('files');
  });

  it('is used when every file matches, and gives exactly the corpus the files give (sources in the folder)', () => {
    const { dir, artifacts } = compiledCopy();
    const fromArtifact = load(dir, artifacts);
    const fromFiles = load(dir, null);
    expect(fromArtifact.loadedFrom).toBe('artifact');
    expect(contents(fromArtifact)).toEqual(contents(fromFiles));
    // Key order too: reports and evidence serialize these objects.
    expect(JSON.stringify(contents(fromArtifact))).toBe(JSON.stringify(contents(fromFiles)));
    expect(fromArtifact.all.length).toBeGreaterThan(0);
    for (const file of fromArtifact.sources.values()) expect(file.startsWith(`${dir}/`)).toBe(true);
    // Transform variants are made from the loaded scenarios, alike.
    const chains = { transforms: [['base64']] };
    expect(contents(load(dir, artifacts, chains))).toEqual(contents(load(dir, null, chains)));
    expect(load(dir, artifacts, chains).attacks.length).toBeGreaterThan(fromFiles.attacks.length);
  });

  it("each incident has its own artifact; the other incident's does not serve it", () => {
    const { dir, artifacts } = compiledCopy('oauth-consent-phishing');
    expect(load(dir, artifacts, { incident: 'oauth-consent-phishing' }).loadedFrom).toBe('artifact');
    expect(load(dir, artifacts).loadedFrom).toBe('files');
  });

  it('an edited scenario file with a stale artifact takes the full load and reports its own errors with positions', () => {
    const { dir, artifacts } = compiledCopy();
    const file = join(dir, 'attacks', 'ATK-001.yaml');
    edit(file, 'title: Instruction hidden', 'title: Edited instruction hidden');
    const corpus = load(dir, artifacts);
    expect(corpus.loadedFrom).toBe('files');
    expect(corpus.all.find((s) => s.id === 'ATK-001')?.title).toMatch(/^Edited/);

    const broken = compiledCopy();
    const brokenFile = join(broken.dir, 'attacks', 'ATK-001.yaml');
    edit(brokenFile, 'difficulty: medium', 'difficulty: medium\nsurprise: field');
    const line = readFileSync(brokenFile, 'utf8').split('\n').indexOf('surprise: field') + 1;
    expect(() => load(broken.dir, broken.artifacts)).toThrow(ScenarioLoadError);
    expect(() => load(broken.dir, broken.artifacts)).toThrow(`${brokenFile}:${line}:1: surprise: unknown field`);
  });

  it('an added or removed scenario file takes the full load; a file the loader does not read changes nothing', () => {
    for (const change of [
      (dir: string) => cpSync(join(dir, 'controls', 'BEN-001.yaml'), join(dir, 'controls', 'BEN-001-copy.yaml')),
      (dir: string) => rmSync(join(dir, 'attacks', 'ATK-002.yaml')),
      (dir: string) =>
        cpSync(join(dir, 'incidents', `${DEFAULT_INCIDENT}.yaml`), join(dir, 'attacks', 'ATK-ignored.txt')),
    ]) {
      const { dir, artifacts } = compiledCopy();
      const before = corpusFolderInputs(dir, DEFAULT_INCIDENT).digest;
      change(dir);
      const changed = corpusFolderInputs(dir, DEFAULT_INCIDENT).digest !== before;
      // A file the loader does not read (not *.yaml) changes nothing, and the artifact still serves.
      expect(load(dir, artifacts).loadedFrom).toBe(changed ? 'files' : 'artifact');
    }
  });

  it("a changed incident fixture (the key's fixture digest) takes the full load", () => {
    const { dir, artifacts, artifact } = compiledCopy();
    rewrite(artifact, (e) =>
      Object.assign(e.key as object, { fixture: { ref: 'identity_compromise', sha256: '0'.repeat(64) } }),
    );
    const inputs = corpusFolderInputs(dir, DEFAULT_INCIDENT);
    const found = precompiledCorpus(inputs, artifacts);
    expect('rejected' in found && found.rejected).toMatch(/key differs/);
    expect(load(dir, artifacts).loadedFrom).toBe('files');
  });

  const damaged: [string, (file: string) => void, RegExp][] = [
    ['missing', (f) => rmSync(f), /no artifact/],
    ['truncated', (f) => writeFileSync(f, readFileSync(f, 'utf8').slice(0, 9000)), /not JSON/],
    ['not an artifact', (f) => writeFileSync(f, '[1,2,3]'), /not a format 1 artifact/],
    ['of another kind', (f) => rewrite(f, (e) => Object.assign(e, { kind: 'policies' })), /holds policies/],
    [
      'with a payload edited after the build',
      (f) => writeFileSync(f, readFileSync(f, 'utf8').replace('helpdesk note', 'helpdesk notE')),
      /does not match its digest/,
    ],
    [
      'of another soclab version',
      (f) => rewrite(f, (e) => Object.assign(e.key as object, { soclab: '9.9.9' })),
      /key differs/,
    ],
    [
      'with a payload of the wrong shape',
      (f) => rewrite(f, (_e, p) => Object.assign(p, { entries: 'none' })),
      /wrong shape/,
    ],
    [
      'naming a file outside the folder',
      (f) =>
        rewrite(f, (_e, p) => {
          (p.entries as { name: string }[])[0]!.name = 'attacks/ATK-999-elsewhere.yaml';
        }),
      /not read/,
    ],
  ];
  for (const [what, damage, reason] of damaged) {
    it(`an artifact ${what} is not used: the full load gives the same corpus`, () => {
      const { dir, artifacts, artifact } = compiledCopy();
      const expected = contents(load(dir, null));
      damage(artifact);
      const found = precompiledCorpus(corpusFolderInputs(dir, DEFAULT_INCIDENT), artifacts);
      expect('rejected' in found && found.rejected).toMatch(reason);
      const corpus = load(dir, artifacts);
      expect(corpus.loadedFrom).toBe('files');
      expect(contents(corpus)).toEqual(expected);
    });
  }

  it("an artifact compiled from another folder's files is never used for this folder, even under its name", () => {
    const { dir, artifacts, artifact } = compiledCopy();
    const other = compiledCopy();
    edit(join(other.dir, 'attacks', 'ATK-001.yaml'), 'title: Instruction hidden', 'title: Tampered instruction hidden');
    const otherName = precompileCorpus(other.dir, DEFAULT_INCIDENT, artifacts);
    writeFileSync(artifact, readFileSync(join(artifacts, otherName)));
    const found = precompiledCorpus(corpusFolderInputs(dir, DEFAULT_INCIDENT), artifacts);
    expect('rejected' in found && found.rejected).toMatch(/key differs/);
    const corpus = load(dir, artifacts);
    expect(corpus.loadedFrom).toBe('files');
    expect(corpus.all.find((s) => s.id === 'ATK-001')?.title).not.toMatch(/Tampered/);
  });

  it('a corpus of several folders (the bundled one and a user folder) is always loaded from its files', () => {
    const { dir, artifacts } = compiledCopy();
    clearScenarioCache();
    const corpus = loadCorpus({ dir, transforms: null, incident: DEFAULT_INCIDENT, precompiledDir: artifacts });
    expect(corpus.dirs).toHaveLength(2);
    expect(corpus.loadedFrom).toBe('files');
  });
});
