/**
 * Helpers shared by CLI commands. Keep this file free of heavy imports: every command module imports it,
 * and `harness --version` must stay fast.
 */

import { CliError, EXIT as COMMON_EXIT } from './program.js';

export { CliError };

/** Exit codes (docs/ci.md): the common four, and 4 when a comparison gate is inconclusive (a big drop on too few cases). */
export const EXIT = { ...COMMON_EXIT, inconclusive: 4 } as const;

/** Register every built-in plugin (side-effect imports), loaded only by commands that need them. */
export async function loadBuiltins(): Promise<void> {
  await Promise.all([
    import('../evaluators/index.js'),
    import('../metrics/index.js'),
    import('../adapters/index.js'),
    import('../reporters/index.js'),
  ]);
}

/** Parse a positive integer option, or throw a usage error naming the option. */
export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive integer (got '${value}')`);
    return n;
  };
}

/** Parse a positive number of seconds. */
export function positiveSeconds(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new CliError(`${name} must be a positive number of seconds (got '${value}')`);
    return n;
  };
}

/** Collect a repeatable option into a list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Print an error the way every command does and set the exit code. */
export function fail(err: unknown, scrub: (t: string) => string = (t) => t): number {
  const code = err instanceof CliError ? err.exitCode : errorExitCode(err);
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`harness: ${scrub(message)}\n`);
  if (process.env.HARNESS_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${scrub(err.stack)}\n`);
  return code;
}

/** Validation-type errors (unknown plugin, bad options, invalid suite) are usage errors; others are runtime. */
function errorExitCode(err: unknown): number {
  const name = err instanceof Error ? err.name : '';
  return [
    'UnknownPluginError',
    'PluginOptionsError',
    'SuiteValidationError',
    'RunSetupError',
    'RunLockedError',
  ].includes(name)
    ? EXIT.usage
    : EXIT.runtime;
}
