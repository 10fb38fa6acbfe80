/**
 * Helpers shared by CLI commands. Keep this file free of heavy imports: every command module imports it,
 * and `harness --version` must stay fast.
 */

/**
 * Exit codes, as documented: 0 ok, 1 gate/evaluation failure, 2 usage or validation error, 3 runtime error,
 * 4 comparison gate inconclusive (a big drop on too few cases; docs/ci.md).
 */
export const EXIT = { ok: 0, gate: 1, usage: 2, runtime: 3, inconclusive: 4 } as const;

/** An error that ends the command with a specific exit code and a plain message (no stack). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}

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
