import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { makeDirectory } from '@aeh/harness/directories';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { CedarPolicyEngine, compileAndProve } from '../control/policy/cedar-engine.js';
import { BUNDLED_POLICY_DIR, readPolicyFolder } from '../control/policy/folder.js';
import { encodePolicyArtifact, precompiledPolicyFolder } from '../control/policy/precompiled.js';
import {
  BUNDLED_SCENARIO_DIR,
  clearScenarioCache,
  corpusFolderInputs,
  loadCorpus,
  readCorpusFiles,
} from '../scenarios/loader.js';
import { encodeCorpusArtifact, precompiledCorpus } from '../scenarios/precompiled.js';
import { artifactName, PRECOMPILED_DIR } from './artifacts.js';

const ARTIFACT_FILE = /^(policies|corpus)-[0-9a-f]{64}\.json$/;

/** What one build wrote (file names) and which older artifacts it removed. */
export interface PrecompileResult {
  written: string[];
  removed: string[];
}

/**
 * The build step (scripts/precompile-soclab.mjs): load the bundled policy folder and the bundled corpus of every
 * bundled incident with the real loaders, full validation included, write each result as an artifact in `outDir`,
 * and check that loading from the artifact gives exactly what the full load gave (or fail the build). Artifacts of
 * earlier inputs are removed. Any problem in the assets fails the build with the loaders' own errors.
 */
export function precompileBuiltInAssets(outDir: string = PRECOMPILED_DIR): PrecompileResult {
  const written = [precompilePolicyFolder(BUNDLED_POLICY_DIR, outDir)];
  const incidents = readdirSync(join(BUNDLED_SCENARIO_DIR, 'incidents'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => basename(f, '.yaml'))
    .sort();
  for (const incident of incidents) written.push(precompileCorpus(BUNDLED_SCENARIO_DIR, incident, outDir));
  const removed: string[] = [];
  for (const name of readdirSync(outDir)) {
    if (ARTIFACT_FILE.test(name) && !written.includes(name)) {
      rmSync(join(outDir, name), { force: true });
      removed.push(name);
    }
  }
  return { written, removed };
}

/**
 * Equal values that also serialize alike (key order included: reports and evidence serialize these objects). JSON
 * holds no undefined, Date or Map: a result it cannot carry exactly fails the build here, never a run.
 */
function identical(a: unknown, b: unknown): boolean {
  const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? [...v] : v));
  return isDeepStrictEqual(a, b) && json(a) === json(b);
}

/** Written whole, then renamed: a reader never sees half an artifact. */
function writeArtifact(outDir: string, name: string, text: string): string {
  makeDirectory(outDir);
  const temporary = join(outDir, `.${name}.${process.pid}`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(outDir, name));
  return name;
}

/** Compile the policy folder `dir` in full and write its artifact to `outDir`; returns the artifact's file name. */
export function precompilePolicyFolder(dir: string, outDir: string): string {
  const folder = readPolicyFolder(dir);
  const compiled = compileAndProve(folder);
  const name = writeArtifact(outDir, artifactName('policies', folder.digest), encodePolicyArtifact(folder, compiled));
  const back = precompiledPolicyFolder(folder, outDir);
  if ('rejected' in back || !identical(back.compiled, compiled)) {
    throw new Error(`the policy artifact does not load back to the compiled folder ${folder.dir}`);
  }
  // With the authorizer given, the engine is not cached: a later load in this process reads the artifact again.
  const engine = CedarPolicyEngine.load({ dir, precompiledDir: outDir, authorizer: cedar.statefulIsAuthorized });
  if (engine.compiledFrom !== 'artifact') throw new Error('Cedar does not preparse the policy artifact');
  return name;
}

/** Load the one-folder corpus `dir` for `incident` in full and write its artifact to `outDir`; returns its name. */
export function precompileCorpus(dir: string, incident: string, outDir: string): string {
  const inputs = corpusFolderInputs(dir, incident);
  const full = readCorpusFiles([dir], incident);
  const loaded = { incident: full.incident, entries: full.entries.map(({ name, scenario }) => ({ name, scenario })) };
  const name = writeArtifact(outDir, artifactName('corpus', inputs.digest), encodeCorpusArtifact(inputs, loaded));
  const back = precompiledCorpus(inputs, outDir);
  if ('rejected' in back || !identical(back.loaded, loaded)) {
    throw new Error(`the corpus artifact of ${dir} (incident ${incident}) does not load back to what the loader read`);
  }
  const options = { dir, bundled: false, incident, transforms: null } as const;
  clearScenarioCache();
  const fromArtifact = loadCorpus({ ...options, precompiledDir: outDir });
  const fromFiles = loadCorpus({ ...options, precompiledDir: null });
  if (
    fromArtifact.loadedFrom !== 'artifact' ||
    !identical({ ...fromArtifact, loadedFrom: null }, { ...fromFiles, loadedFrom: null })
  ) {
    throw new Error(`the corpus of ${dir} (incident ${incident}) loads differently from its artifact`);
  }
  return name;
}
