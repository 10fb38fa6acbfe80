/**
 * Helpers shared by CLI commands. Keep this file free of heavy imports: every command module imports it,
 * and `harness --version` must stay fast.
 */

import { errorCode, errorMessage, UNCLASSIFIED_ERROR_CODE } from '../core/errors.js';
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

/**
 * Register only the built-ins named in `names` (any kind), the others declared by name (plugins/builtins.ts;
 * `harness run`). No parameter on loadBuiltins itself: tests pass it to beforeAll, which reads its parameters.
 */
export async function loadNamedBuiltins(names: Iterable<string>): Promise<void> {
  const { loadBuiltinPlugins } = await import('../plugins/builtins.js');
  await loadBuiltinPlugins(names);
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

/**
 * Print an error the way every command does and return its exit code. A harness error's stable code leads the
 * message (`harness: [AEH_ERR_SUITE_INVALID] suite is invalid ...`; docs/errors.md). When the command was asked for
 * machine output (`--json`, or `--format json` alone), the error is also printed to stdout as one JSON object:
 * `{"error":{"code":...,"message":...,"exit_code":...}}`.
 */
export function fail(
  err: unknown,
  scrub: (t: string) => string = (t) => t,
  argv: readonly string[] = process.argv,
): number {
  const exit = err instanceof CliError ? err.exitCode : errorExitCode(err);
  const message = scrub(errorMessage(err));
  const code = errorCode(err);
  process.stderr.write(`harness: ${code ? `[${code}] ` : ''}${message}\n`);
  if (process.env.HARNESS_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${scrub(err.stack)}\n`);
  if (wantsJson(argv)) {
    const error = { code: code ?? UNCLASSIFIED_ERROR_CODE, message, exit_code: exit };
    process.stdout.write(`${JSON.stringify({ error })}\n`);
  }
  return exit;
}

/** True when the command line asks for machine output: `--json`, or `--format json` (or `--format=json`) alone. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'));
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
