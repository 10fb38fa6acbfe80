import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { debuglog } from 'node:util';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../contracts/canonical.js';

/**
 * Precompiled built-in assets (issue 22): the build (scripts/precompile-soclab.mjs) loads the bundled policy folder
 * and scenario corpus with the real loaders, full validation included, and writes each result here as JSON; a later
 * load whose input files hash to the same key reads the result instead of compiling it again, like a compiler's
 * object cache.
 *
 * The folder sits beside the code in `dist/` and is trusted like the code (the build writes both; never a shared temp
 * folder). The input files are still read and hashed on every load: an artifact is only ever used for input whose
 * digest it names, so an edited file always takes the full load and reports its own errors.
 */
export const PRECOMPILED_DIR = fileURLToPath(new URL('../../dist/precompiled/', import.meta.url));

/** Bumped whenever the shape or meaning of an artifact changes; part of every key. */
export const PRECOMPILED_FORMAT = 1;

/** What an artifact holds. */
export type ArtifactKind = 'policies' | 'corpus';

/** `NODE_DEBUG=soclab` prints which loads used an artifact and why others did not. */
export const precompiledDebug = debuglog('soclab');

/**
 * Where artifacts are read from: `dir` when given (null: none), else the build's folder. Any non-empty
 * `SOCLAB_NO_PRECOMPILED` turns them off (measurements, or to rule them out); its value is never read as a path.
 */
export function precompiledDirFor(dir: string | null | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (dir !== undefined) return dir;
  return env.SOCLAB_NO_PRECOMPILED ? null : PRECOMPILED_DIR;
}

const Envelope = z.strictObject({
  format: z.literal(PRECOMPILED_FORMAT),
  kind: z.enum(['policies', 'corpus']),
  key: z.record(z.string(), z.unknown()),
  /** SHA-256 of `payload`: a truncated or hand-edited artifact never passes for a good one. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The result as JSON text, hashed as written. */
  payload: z.string(),
});
type Envelope = z.infer<typeof Envelope>;

/** An artifact's file name: its kind and the digest of what it was compiled from. */
export function artifactName(kind: ArtifactKind, digest: string): string {
  return `${kind}-${digest}.json`;
}

/** The artifact text for `payload`, compiled from the input `key` names. */
export function encodeArtifact(kind: ArtifactKind, key: Record<string, unknown>, payload: unknown): string {
  const text = JSON.stringify(payload);
  const envelope: Envelope = { format: PRECOMPILED_FORMAT, kind, key, sha256: sha256Hex(text), payload: text };
  return `${JSON.stringify(envelope)}\n`;
}

/** An artifact's envelope, checked; the key and payload are the caller's to compare and read. */
export interface OpenedArtifact {
  readonly file: string;
  readonly key: Record<string, unknown>;
  readonly payload: unknown;
}

/** Why an artifact was not used (for tests and `NODE_DEBUG=soclab`). */
export type ArtifactRejection = { readonly rejected: string };

/**
 * Read `<dir>/<kind>-<digest>.json` and check its envelope and payload digest. Anything wrong (missing, unreadable,
 * not JSON, wrong format or kind, payload not matching its digest, payload not JSON) is a rejection, never an error:
 * the caller then loads the input files in full.
 */
export function openArtifact(dir: string, kind: ArtifactKind, digest: string): OpenedArtifact | ArtifactRejection {
  const file = join(dir, artifactName(kind, digest));
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { rejected: `no artifact ${file}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { rejected: `${file} is not JSON` };
  }
  const envelope = Envelope.safeParse(raw);
  if (!envelope.success) return { rejected: `${file} is not a format ${PRECOMPILED_FORMAT} artifact` };
  if (envelope.data.kind !== kind) return { rejected: `${file} holds ${envelope.data.kind}, not ${kind}` };
  if (sha256Hex(envelope.data.payload) !== envelope.data.sha256) {
    return { rejected: `${file}: payload does not match its digest` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(envelope.data.payload);
  } catch {
    return { rejected: `${file}: payload is not JSON` };
  }
  return { file, key: envelope.data.key, payload };
}

/** True when an artifact's recorded key is exactly the key of what was just read. */
export function sameKey(recorded: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  try {
    return canonicalJson(recorded) === canonicalJson(expected);
  } catch {
    return false;
  }
}

/**
 * The build's artifacts count only while they are at least as new as the tsc builds of the code that reads them (the
 * rule bin/soclab.js applies to its bundle): after a `tsc -b` alone, code that may validate differently is never
 * served results compiled by the code before it. Artifacts in another folder (tests) are the caller's to keep current.
 */
export function staleBuildArtifact(dir: string, file: string): boolean {
  if (dir !== PRECOMPILED_DIR) return false;
  const mtime = (url: URL | string) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
  const built = ['../../dist/.tsbuildinfo', '../../../harness/dist/.tsbuildinfo', '../../../models/dist/.tsbuildinfo']
    .map((path) => mtime(new URL(path, import.meta.url)))
    .filter((t) => !Number.isNaN(t));
  return built.length > 0 && mtime(file) < Math.max(...built);
}
