import { describe, expect, it } from 'vitest';
import { ExperimentComparator } from '../../../src/comparison/comparator.js';
import { comparisonConsole } from '../../../src/comparison/render-console.js';
import { comparisonMarkdown } from '../../../src/comparison/render-markdown.js';
import { cases, experiment } from './fixtures.js';

describe('comparison renderers', () => {
  it('markdown states the gate, the paired table and the flips, and stays within a PR comment', async () => {
    const base = experiment(
      'base-run',
      cases(
        4000,
        () => true,
        (i) => ({ name: `case | ${i}` }),
      ),
    );
    const cand = experiment(
      'cand-run',
      cases(
        4000,
        (i) => i % 4 !== 0,
        (i) => ({ name: `case | ${i}` }),
      ),
    );
    const c = await ExperimentComparator.compare(base, cand);
    const md = comparisonMarkdown(c);
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).toContain('**❌ Gate failed**');
    expect(md).toMatch(
      /\| \*\*pass\\_rate\*\* \| 1 \| 0\.75 \| -0\.25 \(-25\.0%\) \| \[-0\.2\d+, -0\.2\d+\] \| <0\.0001 \| 🔴 regression \|/,
    );
    expect(md).toContain('🔴 Newly failing: **1000**');
    expect(md).toContain('case \\| 0');
    expect(md).toMatch(/…and \d+ more/);
    const tight = comparisonMarkdown(c, { maxChars: 4_000 });
    expect(tight.length).toBeLessThanOrEqual(4_000);
  });

  it('console output is plain text without colour codes when colour is off', async () => {
    const base = experiment(
      'a',
      cases(20, () => true),
    );
    const cand = experiment(
      'b',
      cases(20, (i) => i !== 3),
    );
    const text = comparisonConsole(await ExperimentComparator.compare(base, cand), { color: false });
    expect(text).not.toMatch(/\u001b\[/);
    expect(text).toContain('pass_rate *');
    expect(text).toContain('Newly failing (1)');
    expect(text).toContain('c3#0');
    expect(text).toContain('Gate passed');
  });
});
