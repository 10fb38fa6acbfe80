import {
  type ArtifactRejection,
  encodeArtifact,
  openArtifact,
  PRECOMPILED_FORMAT,
  precompiledDebug,
  sameKey,
  staleBuildArtifact,
} from '../precompile/artifacts.js';
import { soclabVersion } from '../version.js';
import type { FixtureData } from './fixture.js';

/** What the full load makes of one fixture file: its version, the SHA-256 of its canonical JSON and the data. */
export interface CompiledFixture {
  readonly version: string;
  readonly sha256: string;
  readonly data: FixtureData;
}

/** Everything a loaded fixture depends on besides this code: the file's text, the soclab version, the format. */
function fixtureArtifactKey(digest: string): Record<string, unknown> {
  return { format: PRECOMPILED_FORMAT, soclab: soclabVersion(), sha256: digest };
}

/** The artifact text of a fixture loaded in full (the build step); `digest` is the SHA-256 of the file's text. */
export function encodeFixtureArtifact(digest: string, compiled: CompiledFixture): string {
  return encodeArtifact('fixture', fixtureArtifactKey(digest), compiled);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A fixture from its artifact in `precompiledDir`, or why there is none. Used only when the artifact's key is exactly
 * the text just read; its data is what the full load produced from that text (checked at build time, see
 * src/precompile/build.ts), so it is not validated again: a shape check catches a damaged file.
 */
export function precompiledFixture(
  digest: string,
  precompiledDir: string,
): { compiled: CompiledFixture; file: string } | ArtifactRejection {
  const opened = openArtifact(precompiledDir, 'fixture', digest);
  const reject = (rejected: string): ArtifactRejection => {
    precompiledDebug('fixture (%s): full load (%s)', digest.slice(0, 12), rejected);
    return { rejected };
  };
  if ('rejected' in opened) return reject(opened.rejected);
  const payload = opened.payload;
  if (
    !isRecord(payload) ||
    typeof payload.version !== 'string' ||
    typeof payload.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(payload.sha256) ||
    !isRecord(payload.data) ||
    !isRecord(payload.data.incident)
  )
    return reject(`${opened.file}: payload has the wrong shape`);
  if (!sameKey(opened.key, fixtureArtifactKey(digest))) return reject(`${opened.file}: key differs`);
  if (staleBuildArtifact(precompiledDir, opened.file)) return reject(`${opened.file} is older than the build`);
  precompiledDebug('fixture (%s): from %s', digest.slice(0, 12), opened.file);
  return { compiled: payload as unknown as CompiledFixture, file: opened.file };
}
