import { packageVersion } from '@aeh/harness/cli';

let cached: string | null = null;

/**
 * The @aeh/soclab package version: package.json is the one source (read once, with the harness's reader; the
 * relative path is the same from src/ and dist/). 0.0.0 when it cannot be read.
 */
export function soclabVersion(): string {
  cached ??= packageVersion(new URL('../package.json', import.meta.url));
  return cached;
}
