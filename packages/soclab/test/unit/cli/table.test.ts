import Table from 'cli-table3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextTable } from '../../../src/cli/common.js';

// The CLI's tables are drawn without cli-table3 when every cell is plain; the bytes must be cli-table3's either way.
const reference = (head: string[], rows: Table.HorizontalTableRow[], colour: boolean): string => {
  const t = new Table({
    head,
    style: colour ? { head: ['bold'], border: ['grey'], compact: true } : { head: [], border: [], compact: true },
  });
  t.push(...rows);
  return t.toString();
};
const drawn = (head: string[], rows: Table.HorizontalTableRow[], colour: boolean): string => {
  const t = new TextTable(head, colour);
  t.push(...rows);
  return t.toString();
};

describe('TextTable draws what cli-table3 draws', () => {
  it('an empty table, an empty cell, a truncated title, and padding kept at both ends', () => {
    expect(drawn(['id', 'title'], [], false)).toBe(reference(['id', 'title'], [], false));
    expect(drawn(['id', 'title'], [], false)).toBe('┌────┬───────┐\n│ id │ title │\n└────┴───────┘');
    const rows = [
      ['', ''],
      ['ATK-002', 'Instructions returned by the threat-intelligenc…'],
      ['  lead', 'trail  '],
    ];
    expect(drawn(['id', 'title'], rows, false)).toBe(reference(['id', 'title'], rows, false));
  });

  it('cells cli-table3 must measure (colour, line breaks, wide, control and escape characters, numbers, ragged rows)', () => {
    const cases: [string[], Table.HorizontalTableRow[], boolean][] = [
      [['a', 'b'], [['x', 'y']], true],
      [['a', 'b'], [['two\nlines', 'y']], false],
      [['a', 'b'], [['中文', 'é']], false],
      [['a', 'b'], [['tab\there', '\u001b[1mbold\u001b[22m']], false],
      [['a', 'b'], [[42, null]], false],
      [['a', 'b', 'c'], [['only one']], false],
    ];
    for (const [head, rows, colour] of cases) expect(drawn(head, rows, colour)).toBe(reference(head, rows, colour));
  });

  it('any table of strings and numbers, plain or not, with or without colour (property)', () => {
    const plainChar = fc.constantFrom('a', 'Z', '0', ' ', '-', '_', '~', '|', '…', '[', '.');
    const anyChar = fc.constantFrom('a', ' ', '…', 'é', '中', '\n', '\t', '\u001b', '😀', '\u200b');
    const cell = fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: plainChar, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: anyChar, maxLength: 6 }) },
      { weight: 1, arbitrary: fc.integer({ min: -50, max: 5000 }) },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((width) =>
          fc.record({
            head: fc.array(fc.string({ unit: plainChar, minLength: 1, maxLength: 10 }), {
              minLength: width,
              maxLength: width,
            }),
            rows: fc.array(
              fc.oneof(
                { weight: 8, arbitrary: fc.array(cell, { minLength: width, maxLength: width }) },
                { weight: 1, arbitrary: fc.array(cell, { maxLength: width + 1 }) },
              ),
              { maxLength: 6 },
            ),
            colour: fc.boolean(),
          }),
        ),
        ({ head, rows, colour }) => {
          expect(drawn(head, rows, colour)).toBe(reference(head, rows, colour));
        },
      ),
      { seed: 22, numRuns: 400 },
    );
  });
});
