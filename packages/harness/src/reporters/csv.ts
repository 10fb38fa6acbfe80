import { z } from 'zod';
import type { TestCaseResult } from '../core/result.js';
import { defineReporter } from './base.js';
import { renderTo } from './support/sink.js';
import { asView, inputOf, outputOf, reasonOf } from './support/text.js';

const CsvOptions = z.strictObject({
  /** One character between fields. */
  delimiter: z.string().length(1).default(','),
  /**
   * Prefix cells starting with `=`, `+`, `-`, `@`, tab or CR with `'` so a spreadsheet does not run agent
   * output as a formula (CSV injection). Turn off for exact round-trips into data tools.
   */
  escape_formulas: z.boolean().default(true),
  /** Include the input and output text columns. */
  include_text: z.boolean().default(true),
  /** Byte-order mark for Excel. */
  bom: z.boolean().default(false),
});
export type CsvOptions = z.infer<typeof CsvOptions>;

const FIXED_COLUMNS = [
  'test_id',
  'test_name',
  'repeat',
  'status',
  'score',
  'duration_seconds',
  'latency_seconds',
  'attempts',
  'cost_usd',
  'input_tokens',
  'output_tokens',
  'tags',
];
const BATCH = 500;

/**
 * One row per case x repeat, RFC 4180 quoting (csv-stringify), one `score:<evaluator>` and `passed:<evaluator>`
 * column pair per evaluator seen in the run.
 *
 * @example harness export runs/latest --format csv --out results.csv
 */
export const csvReporter = defineReporter({
  name: 'csv',
  description: 'CSV, one row per case x repeat with per-evaluator score columns (RFC 4180 quoting)',
  extension: 'csv',
  options: CsvOptions as z.ZodType<CsvOptions>,
  create(options) {
    const o = CsvOptions.parse(options ?? {});
    return {
      name: 'csv',
      async report(run, destination) {
        const view = asView(run);
        const evaluators: string[] = [];
        const seen = new Set<string>();
        for await (const r of view.results()) {
          for (const e of r.evaluations) {
            if (!seen.has(e.evaluator)) {
              seen.add(e.evaluator);
              evaluators.push(e.evaluator);
            }
          }
        }
        const columns = [
          ...FIXED_COLUMNS,
          ...(o.include_text ? ['input', 'output'] : []),
          'error',
          'reason',
          ...evaluators.flatMap((e) => [`score:${e}`, `passed:${e}`]),
        ];
        // Loaded on first use so listing plugins stays fast.
        const { stringify } = await import('csv-stringify/sync');
        const format = (rows: unknown[][], header: boolean) =>
          stringify(rows, {
            delimiter: o.delimiter,
            escape_formulas: o.escape_formulas,
            bom: header && o.bom,
            record_delimiter: '\r\n',
            cast: { boolean: (b) => (b ? 'true' : 'false') },
          });
        return renderTo(destination, async (sink) => {
          await sink.write(format([columns], true));
          let batch: unknown[][] = [];
          for await (const r of view.results()) {
            batch.push(row(r, evaluators, o.include_text));
            if (batch.length >= BATCH) {
              await sink.write(format(batch, false));
              batch = [];
            }
          }
          if (batch.length > 0) await sink.write(format(batch, false));
        });
      },
    };
  },
});

function row(r: TestCaseResult, evaluators: readonly string[], includeText: boolean): unknown[] {
  const o = r.output;
  const cells: unknown[] = [
    r.test_id,
    r.test_name,
    r.repeat,
    r.status,
    round(r.score),
    round(r.duration),
    o.latency === null ? '' : round(o.latency),
    r.attempts,
    o.cost ?? '',
    o.usage?.input_tokens ?? '',
    o.usage?.output_tokens ?? '',
    r.tags.join(';'),
  ];
  if (includeText) cells.push(inputOf(r), outputOf(r));
  cells.push(o.error ?? '', reasonOf(r));
  for (const name of evaluators) {
    const mine = r.evaluations.filter((e) => e.evaluator === name);
    if (mine.length === 0) cells.push('', '');
    else
      cells.push(
        round(mine.reduce((s, e) => s + e.score, 0) / mine.length),
        mine.every((e) => e.passed),
      );
  }
  return cells;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
