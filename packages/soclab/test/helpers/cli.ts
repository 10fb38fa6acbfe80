import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { builtinProviderIds } from '../../src/providers/registry.js';

/** The repository root (tests spawn the CLI from here). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The soclab CLI entry point, run from source through tsx. */
export const SOCLAB_MAIN = 'packages/soclab/src/cli/main.ts';

/** Every provider id the soclab registry knows, in listing order (from the registry, so a new provider needs no edit). */
export const PROVIDER_IDS: readonly string[] = builtinProviderIds();

const run = promisify(execFile);

/**
 * Runs `soclab <args>` from source with a controlled environment: PATH, HOME, NO_COLOR=1 and `env` only, so no
 * credential of the machine running the tests leaks in.
 */
export async function soclabIsolated(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' };
  try {
    const r = await run(process.execPath, ['--import', 'tsx', SOCLAB_MAIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...base, ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
