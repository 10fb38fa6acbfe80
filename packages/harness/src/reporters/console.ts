import { createColors } from 'picocolors';
import { z } from 'zod';
import { colourWanted, tableStyle } from '../core/colour.js';
import { formatLike, formatSeconds, TIME_LABELS } from '../core/durations.js';
import type { Experiment } from '../core/experiment.js';
import type { TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import { defineReporter } from './base.js';
import { renderTo } from './support/sink.js';
import { asView, reasonOf } from './support/text.js';

const ConsoleOptions = z.strictObject({
  /** Colour output; default: only when stdout is a TTY and NO_COLOR is unset. */
  color: z.boolean().optional(),
  /** Runs with more results than this show only the cases that did not pass. */
  max_rows: z.number().int().min(1).default(50),
  /** Most non-passing rows shown for a long run. */
  max_failures: z.number().int().min(0).default(20),
  /** Width cap for the reason column. */
  reason_width: z.number().int().min(10).default(60),
});
export type ConsoleOptions = z.infer<typeof ConsoleOptions>;

function wantsColor(explicit?: boolean): boolean {
  if (explicit !== undefined) return explicit;
  return colourWanted(process.stdout);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function fmtSeconds(s: number | null | undefined): string {
  return formatSeconds(s);
}

/**
 * Terminal summary: run facts, counts, metrics (with intervals), thresholds, and a per-case table. Long
 * runs list only the cases that did not pass. Colour only on a TTY; plain text in pipes and CI.
 */
export const consoleReporter = defineReporter({
  name: 'console',
  description: 'Terminal summary: counts, metrics, thresholds and a per-case table (colour on TTY only)',
  extension: 'txt',
  options: ConsoleOptions as z.ZodType<ConsoleOptions>,
  create(options) {
    const o = ConsoleOptions.parse(options ?? {});
    return {
      name: 'console',
      async report(run, destination) {
        const text = await renderConsole(asView(run), o);
        return renderTo(destination, async (sink) => sink.write(text));
      },
    };
  },
});

/** Render the console report for a view (streams results; keeps at most `max_rows` rows). */
export async function renderConsole(
  run: Experiment | ExperimentView,
  options: Partial<ConsoleOptions> = {},
): Promise<string> {
  const view = asView(run);
  const o = ConsoleOptions.parse(options);
  // Loaded on use, so `harness list-plugins` (which imports every reporter) stays fast.
  const { default: Table } = await import('cli-table3');
  const color = wantsColor(o.color);
  const pc = createColors(color);
  const style = tableStyle(color);
  // No separator lines between rows: long tables stay readable.
  const chars = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };
  const h = view.header;
  const lines: string[] = [];

  const counts = { passed: 0, failed: 0, error: 0, skipped: 0 };
  let total = 0;
  const rows: TestCaseResult[] = [];
  const failing: TestCaseResult[] = [];
  let failingTotal = 0;
  for await (const r of view.results()) {
    total++;
    counts[r.status]++;
    if (rows.length <= o.max_rows) rows.push(r);
    if (r.status !== 'passed') {
      failingTotal++;
      if (failing.length < o.max_failures) failing.push(r);
    }
  }
  const long = total > o.max_rows;

  const statusText = (s: TestCaseResult['status']) =>
    s === 'passed'
      ? pc.green('PASS')
      : s === 'failed'
        ? pc.red('FAIL')
        : s === 'error'
          ? pc.yellow('ERROR')
          : pc.dim('SKIP');

  lines.push(pc.bold(`${h.name}`) + pc.dim(`  (run ${h.id}, ${h.state})`));
  const agent = [h.agent.adapter, h.agent.label, h.agent.version].filter(Boolean).join(' ');
  lines.push(pc.dim(`agent: ${agent}   suite: ${h.suite.name} v${h.suite.version}`));
  lines.push('');

  const shown = long ? failing : rows;
  if (shown.length > 0) {
    const table = new Table({
      head: ['case', 'rep', 'status', 'score', TIME_LABELS.callTime, long ? 'reason' : 'reason / output'],
      style,
      chars,
      wordWrap: false,
    });
    for (const r of shown) {
      const reason = r.status === 'passed' ? '' : reasonOf(r);
      table.push([
        clip(r.test_id, 40),
        String(r.repeat),
        statusText(r.status),
        r.score.toFixed(2),
        fmtSeconds(r.duration),
        clip(reason, o.reason_width),
      ]);
    }
    if (long) lines.push(pc.bold(`Cases that did not pass (${failingTotal} of ${total})`));
    lines.push(table.toString());
    if (long && failingTotal > failing.length) lines.push(pc.dim(`… and ${failingTotal - failing.length} more`));
    lines.push('');
  }

  const pct = total === 0 ? 0 : (counts.passed / total) * 100;
  const summary = [
    pc.green(`${counts.passed} passed`),
    counts.failed > 0 ? pc.red(`${counts.failed} failed`) : `${counts.failed} failed`,
    counts.error > 0 ? pc.yellow(`${counts.error} errors`) : `${counts.error} errors`,
  ];
  if (counts.skipped > 0) summary.push(`${counts.skipped} skipped`);
  lines.push(`${pc.bold('Results:')} ${summary.join(', ')} of ${total} (${pct.toFixed(1)}% passed)`);

  const metrics = Object.values(h.metrics);
  if (metrics.length > 0) {
    const table = new Table({ head: ['metric', 'value', 'interval', 'direction'], style, chars });
    for (const m of metrics) {
      const f = (n: number) => fmtLike(m.formatted_value, n);
      const interval = m.interval
        ? `[${f(m.interval.lower)}, ${f(m.interval.upper)}] ${Math.round(m.interval.level * 100)}%`
        : '';
      table.push([
        m.name,
        m.error ? pc.red(`ERR: ${clip(m.error, 40)}`) : m.formatted_value,
        interval,
        m.direction.replace(/_/g, ' '),
      ]);
    }
    lines.push(table.toString());
    // The power hint tells users whether the suite is big enough for comparisons to mean anything.
    const power = h.metrics.success_rate?.details?.power as { message?: unknown } | undefined;
    if (typeof power?.message === 'string') lines.push(pc.dim(`Power: ${power.message}`));
  }

  if (h.thresholds) {
    if (h.thresholds.passed) lines.push(pc.green(`Thresholds: all ${h.thresholds.checked} met`));
    else {
      lines.push(pc.red(pc.bold(`Thresholds: ${h.thresholds.violations.length} violated`)));
      for (const v of h.thresholds.violations) lines.push(pc.red(`  • ${v.message}`));
    }
  }
  if (h.state === 'cancelled')
    lines.push(pc.yellow('Run was interrupted: results are partial (use --resume to finish).'));
  return `${lines.join('\n')}\n`;
}

/** Format an interval bound in the same unit as the metric's formatted value (one rule: core/durations.ts). */
function fmtLike(formatted: string, n: number): string {
  return formatLike(formatted, n, fmtNumber);
}

function fmtNumber(n: number): string {
  return Math.abs(n) >= 100 || Number.isInteger(n) ? String(Math.round(n * 100) / 100) : n.toPrecision(3);
}
