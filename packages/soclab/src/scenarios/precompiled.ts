import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../contracts/canonical.js';
import type { AttackScenario, IncidentScenario } from '../contracts/scenarios.js';
import {
  type ArtifactRejection,
  encodeArtifact,
  openArtifact,
  PRECOMPILED_FORMAT,
  precompiledDebug,
  sameKey,
  staleBuildArtifact,
} from '../precompile/artifacts.js';
import { fixturePath } from '../simulator/fixture.js';
import { soclabVersion } from '../version.js';

/** One loaded scenario and its file, relative to the corpus folder (`attacks/ATK-001.yaml`). */
export interface CorpusEntry {
  readonly name: string;
  readonly scenario: AttackScenario;
}

/** What one folder's files load to for one incident, before transform variants (the part worth precompiling). */
export interface LoadedCorpusFiles {
  readonly incident: IncidentScenario;
  /** In load order; a later file with an id already seen replaces it. */
  readonly entries: readonly CorpusEntry[];
}

/** Every file a one-folder corpus load reads from its folder, by name, with its content digest. */
export interface CorpusInputs {
  readonly incident: string;
  readonly files: readonly { readonly file: string; readonly sha256: string }[];
  /** Digest of the incident name and the files: the artifact's file name. */
  readonly digest: string;
}

/** Read and hash the files a load of `dir` for `incident` reads (`names`: relative, as the loader lists them). */
export function corpusInputs(dir: string, incident: string, names: readonly string[]): CorpusInputs {
  const files = names.map((file) => ({ file, sha256: sha256Hex(readFileSync(join(dir, file), 'utf8')) }));
  return { incident, files, digest: sha256Hex(canonicalJson({ incident, files })) };
}

/**
 * Everything a loaded corpus depends on besides this code: every file read from the folder (names and digests), the
 * incident's fixture (the scenarios are checked against it), the soclab version and the artifact format.
 */
function corpusArtifactKey(inputs: CorpusInputs, fixture: { ref: string; sha256: string }): Record<string, unknown> {
  return {
    format: PRECOMPILED_FORMAT,
    soclab: soclabVersion(),
    incident: inputs.incident,
    files: inputs.files,
    fixture,
  };
}

function fixtureDigest(ref: string): string {
  return sha256Hex(readFileSync(fixturePath(ref), 'utf8'));
}

const CorpusPayload = z.strictObject({
  incident: z.looseObject({ id: z.string().min(1), fixture: z.string().min(1) }),
  entries: z.array(
    z.strictObject({
      name: z.string().regex(/^(attacks\/ATK-|controls\/BEN-)[^/\\]*\.ya?ml$/),
      scenario: z.looseObject({ id: z.string().min(1), attack_class: z.string().min(1) }),
    }),
  ),
});

/** The artifact text of a folder loaded in full by the loader (the build step). */
export function encodeCorpusArtifact(inputs: CorpusInputs, loaded: LoadedCorpusFiles): string {
  const key = corpusArtifactKey(inputs, {
    ref: loaded.incident.fixture,
    sha256: fixtureDigest(loaded.incident.fixture),
  });
  return encodeArtifact('corpus', key, { incident: loaded.incident, entries: loaded.entries });
}

/**
 * The loaded files of a one-folder corpus from its artifact in `precompiledDir`, or why there is none. Used only when
 * the artifact's key is exactly what was just read: the same files with the same contents, the same fixture.
 */
export function precompiledCorpus(
  inputs: CorpusInputs,
  precompiledDir: string,
): { loaded: LoadedCorpusFiles; file: string } | ArtifactRejection {
  const opened = openArtifact(precompiledDir, 'corpus', inputs.digest);
  const reject = (rejected: string): ArtifactRejection => {
    precompiledDebug('corpus (%s): full load (%s)', inputs.incident, rejected);
    return { rejected };
  };
  if ('rejected' in opened) return reject(opened.rejected);
  const payload = CorpusPayload.safeParse(opened.payload);
  if (!payload.success) return reject(`${opened.file}: payload has the wrong shape`);
  const ref = payload.data.incident.fixture;
  let fixture: string;
  try {
    fixture = fixtureDigest(ref);
  } catch {
    return reject(`${opened.file}: fixture ${ref} cannot be read`);
  }
  if (!sameKey(opened.key, corpusArtifactKey(inputs, { ref, sha256: fixture }))) {
    return reject(`${opened.file}: key differs`);
  }
  if (staleBuildArtifact(precompiledDir, opened.file)) return reject(`${opened.file} is older than the build`);
  // Only files the key covers: a scenario's source never points outside what was hashed.
  const hashed = new Set(inputs.files.map((f) => f.file));
  if (!payload.data.entries.every((e) => hashed.has(e.name))) {
    return reject(`${opened.file}: payload names a file that was not read`);
  }
  precompiledDebug('corpus (%s): from %s', inputs.incident, opened.file);
  // The payload is what the full load produced from these exact files (checked at build time, see
  // src/precompile/build.ts), so its scenarios are not validated again; the shape check above catches a damaged file.
  // Its own objects, not zod's output, which would rebuild them in the shape's key order.
  return { loaded: opened.payload as LoadedCorpusFiles, file: opened.file };
}
