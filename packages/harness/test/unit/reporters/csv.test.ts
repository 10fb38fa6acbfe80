import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvReporter } from '../../../src/reporters/csv.js';
import { defined } from '../../helpers/defined.js';
import { experiment } from '../comparison/fixtures.js';

/** A small RFC 4180 reader, written independently of csv-stringify, to check what spreadsheets would see. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

const run = experiment('csv-run', [
  { id: 'plain', passed: true, output: 'fine' },
  { id: 'tricky', passed: false, output: 'a, "quoted" value\nsecond line', name: 'name, with comma' },
  { id: 'formula', passed: true, output: '=HYPERLINK("http://evil.example","click")' },
  {
    id: 'multi',
    passed: false,
    evaluations: [
      { evaluator: 'contains', score: 1, passed: true },
      { evaluator: 'regex_match', score: 0, passed: false, explanation: 'no match for /x/' },
    ],
  },
]);

describe('csv reporter', () => {
  it('quotes commas, quotes and line breaks so every row reads back intact', async () => {
    const text = await csvReporter.create({} as never).report(run);
    const rows = parseCsv(text);
    expect(rows).toHaveLength(5);
    const header = defined(rows[0], 'the header row');
    expect(header.slice(0, 4)).toEqual(['test_id', 'test_name', 'repeat', 'status']);
    expect(header).toContain('score:exact_match');
    expect(header).toContain('passed:regex_match');
    const col = (name: string) => header.indexOf(name);
    expect(rows.every((r) => r.length === header.length)).toBe(true);
    const tricky = defined(rows[2], 'row 2');
    expect(tricky[col('test_name')]).toBe('name, with comma');
    expect(tricky[col('output')]).toBe('a, "quoted" value\nsecond line');
    expect(text).toContain('"a, ""quoted"" value\nsecond line"');
    const multi = defined(rows[4], 'row 4');
    expect(multi[col('score:contains')]).toBe('1');
    expect(multi[col('passed:regex_match')]).toBe('false');
    expect(multi[col('score:exact_match')]).toBe('');
    expect(multi[col('reason')]).toBe('regex_match: no match for /x/');
  });

  it('neutralises spreadsheet formulas in agent output by default, and can keep them verbatim', async () => {
    const safe = parseCsv(await csvReporter.create({} as never).report(run));
    const out = defined(safe[0], 'the header row').indexOf('output');
    expect(safe[3]?.[out]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    const raw = parseCsv(await csvReporter.create({ escape_formulas: false } as never).report(run));
    expect(raw[3]?.[out]).toBe('=HYPERLINK("http://evil.example","click")');
  });

  it('writes the file, creating parent folders, and returns the same text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-csv-'));
    const dest = join(dir, 'nested', 'deeper', 'report.csv');
    const text = await csvReporter.create({ include_text: false } as never).report(run, dest);
    expect(readFileSync(dest, 'utf8')).toBe(text);
    expect(parseCsv(text)[0]).not.toContain('output');
  });

  it('writes only the header for an empty run', async () => {
    const text = await csvReporter.create({} as never).report(experiment('empty', []));
    expect(parseCsv(text)).toHaveLength(1);
  });
});
