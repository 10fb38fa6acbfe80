import { readFileSync } from 'node:fs';
import { Command, CommanderError } from '@commander-js/extra-typings';
import { errorCode } from '../core/errors.js';

/**
 * The exit codes both CLIs document: 0 ok, 1 gate/evaluation failure, 2 usage or validation error, 3 runtime
 * error. Each CLI adds its own meaning of 4 (`harness`: comparison inconclusive; `soclab`: runs errored).
 */
export const EXIT = { ok: 0, gate: 1, usage: 2, runtime: 3 } as const;

/** An error that ends the command with a specific exit code and a plain message (no stack). */
export class CliError extends Error {
  /** `AEH_ERR_CLI`, or the code of the harness error it reports (its `cause`), so the user sees which it was. */
  readonly code: string = 'AEH_ERR_CLI';
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = errorCode(options?.cause) ?? this.code;
  }
}

/** A subcommand module: `commands/<name>.ts` exports `register(program)`. */
export interface CommandModule {
  register(program: Command): void;
}

export interface CliSpec {
  name: string;
  description: string;
  /** URL of the package.json whose version `--version` prints. */
  packageJson: URL;
  commands: readonly CommandModule[];
}

/** The version field of a package.json, or 0.0.0 when it cannot be read. */
export function packageVersion(packageJson: URL): string {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Build a CLI program the way both `harness` and `soclab` behave: commander errors are thrown, not exited. */
export function createProgram(spec: CliSpec): Command {
  const program = new Command(spec.name)
    .description(spec.description)
    .version(packageVersion(spec.packageJson), '-v, --version', `print the ${spec.name} version`)
    .showHelpAfterError('(run with --help for usage)')
    // `harness -v` is the version; after a command name, -v is that command's own (`harness run s.yaml -v`).
    .enablePositionalOptions()
    // Usage errors exit 2 (commander's default is 1, which both CLIs reserve for failed gates).
    .exitOverride((err: CommanderError) => {
      throw err;
    });
  for (const command of spec.commands) command.register(program);
  return program;
}

/**
 * Parse and run `argv`: usage errors exit 2, other errors go through `fail` (which prints them and returns the
 * exit code), and a pipe closed early (`| head`) ends the process quietly: that is the reader's choice.
 */
export async function runProgram(
  program: Command,
  argv: string[],
  fail: (err: unknown) => number | Promise<number>,
): Promise<void> {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = await fail(err);
  }
}
