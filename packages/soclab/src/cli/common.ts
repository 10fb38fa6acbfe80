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
export function table(head: string[]): TextTable {
  return new TextTable(head, colour());
}

/** Cells drawn without cli-table3: printable ASCII and the ellipsis the commands truncate with, one column each. */
const PLAIN_CELL = /^[\x20-\x7e\u2026]*$/;
const isPlainCell = (cell: Table.Cell): cell is string => typeof cell === 'string' && PLAIN_CELL.test(cell);

/**
 * cli-table3's compact table, with the same bytes. cli-table3 measures every cell with string-width (ANSI and
 * emoji regexes, cold code in a fresh process: ~200M instructions for the 33 rows of `soclab scenarios`), so
 * the common case, no colour and every cell one line of plain characters, is drawn here; anything else (colour,
 * line breaks, wide or control characters, non-string cells, ragged rows) goes to cli-table3.
 */
export class TextTable {
  private readonly rows: Table.HorizontalTableRow[] = [];
  constructor(
    private readonly head: string[],
    private readonly colour: boolean,
  ) {}

  push(...rows: Table.HorizontalTableRow[]): number {
    this.rows.push(...rows);
    return this.rows.length;
  }

  toString(): string {
    const width = this.head.length;
    const plain =
      !this.colour &&
      width > 0 &&
      this.head.every(isPlainCell) &&
      this.rows.every((row) => row.length === width && row.every(isPlainCell));
    if (!plain) {
      const fallback = new Table({ head: this.head, style: { ...tableStyle(this.colour), compact: true } });
      fallback.push(...this.rows);
      return fallback.toString();
    }
    const rows = this.rows as string[][];
    const widths = this.head.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] as string).length)));
    const rule = (left: string, middle: string, right: string) =>
      `${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`;
    const line = (row: string[]) => `│${row.map((cell, i) => ` ${cell.padEnd(widths[i] as number)} `).join('│')}│`;
    const lines = [rule('┌', '┬', '┐'), line(this.head)];
    if (rows.length > 0) lines.push(rule('├', '┼', '┤'), ...rows.map(line));
    lines.push(rule('└', '┴', '┘'));
    return lines.join('\n');
  }
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
