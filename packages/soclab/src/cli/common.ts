/**
 * Helpers shared by soclab CLI commands. Keep this file free of heavy imports (every command imports it): harness
 * subpaths, never the harness root, which evaluates the whole library (~190M instructions of `soclab --version`).
 */

import { CliError, EXIT as COMMON_EXIT } from '@aeh/harness/cli';
import { colourWanted, tableStyle } from '@aeh/harness/colour';
import { errorMessage } from '@aeh/harness/errors';
import Table from 'cli-table3';
import pc from 'picocolors';
import { DEFAULT_CANARY_PATTERNS, redact, redactText } from '../control/redaction.js';

/** The harness's CLI error, so both CLIs end a command the same way. */
export { CliError };

/**
 * Exit codes: the harness's common four (0 ok, 1 gate/evaluation failure, 2 usage or validation error, 3 runtime
 * error), and 4 when a campaign finished but some runs errored (provider or transport failure after retries: those
 * runs measured nothing).
 */
export const EXIT = { ...COMMON_EXIT, errored: 4 } as const;

const colour = (): boolean => colourWanted(process.stdout);

/** picocolors when stdout is a terminal, plain text otherwise. */
export const c = {
  bold: (s: string) => (colour() ? pc.bold(s) : s),
  dim: (s: string) => (colour() ? pc.dim(s) : s),
  red: (s: string) => (colour() ? pc.red(s) : s),
  green: (s: string) => (colour() ? pc.green(s) : s),
  yellow: (s: string) => (colour() ? pc.yellow(s) : s),
};

/** A table that only uses colour on a terminal. */
export function table(head: string[]): Table.Table {
  return new Table({ head, style: { ...tableStyle(colour()), compact: true } });
}

/** Everything the CLI prints about a run passes through canary redaction (secrets never reach a terminal or log). */
export const safe = <T>(value: T): T => redact(value, DEFAULT_CANARY_PATTERNS);
export const safeText = (text: string): string => redactText(text, DEFAULT_CANARY_PATTERNS);

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(safe(value), null, 2)}\n`);
}

/** Print an error the way every command does and return the exit code. */
export function fail(err: unknown): number {
  const code = err instanceof CliError ? err.exitCode : EXIT.runtime;
  const message = errorMessage(err);
  process.stderr.write(`soclab: ${safeText(message)}\n`);
  if (process.env.SOCLAB_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${safeText(err.stack)}\n`);
  return code;
}
