/**
 * Shared pieces of the store's CLI commands (runs, history, index, flaky, view): opening the store from
 * `--store`/`--runs-dir`, exit codes, tables that stay plain in pipes, and small formatters.
 */
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { colourWanted, tableStyle } from '../core/colour.js';
import { errorMessage } from '../core/errors.js';
import type { RunStore } from '../store/run-store.js';
import { CliError, EXIT } from './common.js';

export { CliError, EXIT };

export interface StoreCliOptions {
  store?: string | undefined;
  runsDir?: string | undefined;
  /** Index new or grown run folders under runsDir before answering (default true). */
  sync?: boolean | undefined;
}

/** Open the store, bring it up to date with the runs folder, run `fn`, and always close it. */
export async function withStore<T>(options: StoreCliOptions, fn: (store: RunStore) => Promise<T>): Promise<T> {
  const { openStore } = await import('../store/run-store.js');
  const { resolveStoreTarget } = await import('../store/connect.js');
  const { existsSync } = await import('node:fs');
  const runsDir = options.runsDir ?? 'runs';
  const target = resolveStoreTarget({ store: options.store, runsDir });
  if (
    target.dialect === 'sqlite' &&
    target.location !== ':memory:' &&
    !existsSync(target.location) &&
    !existsSync(runsDir)
  ) {
    // Reading commands should not create folders as a side effect of a typo.
    throw new CliError(
      `no runs folder at ${runsDir} and no run index yet: nothing has been run here (see --runs-dir, --store)`,
      EXIT.usage,
    );
  }
  let store: RunStore;
  try {
    store = await openStore({ store: options.store, runsDir: options.runsDir });
  } catch (err) {
    throw new CliError(errorMessage(err), EXIT.runtime, { cause: err });
  }
  try {
    if (options.sync !== false) {
      const sync = await store.syncIndex(options.runsDir ?? 'runs');
      for (const e of sync.errors) process.stderr.write(`harness: warning: cannot index ${e.location}: ${e.message}\n`);
    }
    return await fn(store);
  } catch (err) {
    throw await asCliError(err);
  } finally {
    await store.close();
  }
}

/** Unknown or ambiguous run references are usage errors (exit 2); the rest keep their meaning. */
export async function asCliError(err: unknown): Promise<unknown> {
  const { RunLookupError } = await import('../store/queries.js');
  const { RunNotFoundError } = await import('../store/indexer.js');
  if (err instanceof RunLookupError || err instanceof RunNotFoundError)
    return new CliError(err.message, EXIT.usage, { cause: err });
  return err;
}

/** Commander argument parser for positive integers (`--limit 20`). */
export function parsePositive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`${flag} expects a positive integer, got '${value}'`);
  return n;
}

const plain = () => !colourWanted(process.stdout);

/** A cli-table3 table; borders and headers stay uncoloured when stdout is not a TTY (deps.md gotcha 16). */
export async function table(head: string[]): Promise<{ push(row: string[]): void; toString(): string }> {
  const Table = (await import('cli-table3')).default;
  const t = new Table({
    head,
    style: tableStyle(!plain()),
    // No rule between body rows: long listings stay compact.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  return t as unknown as { push(row: string[]): void; toString(): string };
}

const BARS = '▁▂▃▄▅▆▇█';

/** Unicode sparkline of the values scaled between their minimum and maximum. */
export function sparkline(values: readonly number[]): string {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return '';
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return values
    .map((v) => {
      if (!Number.isFinite(v)) return ' ';
      if (max === min) return BARS[3];
      return BARS[Math.round(((v - min) / (max - min)) * (BARS.length - 1))];
    })
    .join('');
}

export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : `${(value * 100).toFixed(digits)}%`;
}

export function num(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}

export function seconds(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  if (value < 1) return `${Math.round(value * 1000)}ms`;
  if (value < 120) return `${value.toFixed(1)}s`;
  return `${Math.floor(value / 60)}m${Math.round(value % 60)}s`;
}

/** `2026-01-03 10:00` from an ISO timestamp, in local time. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Text for a terminal: control characters from untrusted data are shown escaped, long text cut. */
export function safeText(text: string, max = 80): string {
  const clean = text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u001b]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/\s+/g, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs with no journal activity for this long are shown as idle (probably killed without an end record). */
export const IDLE_AFTER_SECONDS = 600;

/** `completed`, `running`, or `running (idle 3h)` for a run whose journal stopped changing. */
export function stateLabel(run: { state: string; idle_seconds: number | null }): string {
  if (run.state !== 'running' || run.idle_seconds === null || run.idle_seconds < IDLE_AFTER_SECONDS) return run.state;
  const s = run.idle_seconds;
  const idle =
    s >= 86_400 ? `${Math.floor(s / 86_400)}d` : s >= 3600 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 60)}m`;
  return `running (idle ${idle})`;
}
