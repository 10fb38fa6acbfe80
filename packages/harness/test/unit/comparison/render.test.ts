import { describe, expect, it } from 'vitest';
import { ExperimentComparator } from '../../../src/comparison/comparator.js';
import { metricChange } from '../../../src/comparison/headline.js';
import { comparisonConsole } from '../../../src/comparison/render-console.js';
import { comparisonMarkdown } from '../../../src/comparison/render-markdown.js';
import { signed } from '../../../web/src/format.js';
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

  it('a metric change that rounds to zero prints without a sign in the console, Markdown and viewer', async () => {
    const latency = (value: number) => ({
      latency: { name: 'latency', value, formatted_value: '1.23 s', direction: 'lower_is_better' as const },
    });
    const base = experiment(
      'a',
      cases(4, () => true),
      { metrics: latency(1.23) },
    );
    const cand = experiment(
      'b',
      cases(4, () => true),
      { metrics: latency(1.2296) },
    );
    const c = await ExperimentComparator.compare(base, cand);
    const d = c.deltas.latency!;
    expect(d.delta).toBeLessThan(0);
    expect(metricChange(d)).toBe('0 ms');
    const consoleText = comparisonConsole(c, { color: false });
    const row = consoleText.split('\n').find((l) => l.includes('1.23 s'))!;
    expect(row).toContain('0 ms');
    expect(row).toContain('0%');
    expect(row).not.toMatch(/-0(\.0+)?( ms|%| s)/);
    const md = comparisonMarkdown(c);
    const mdRow = md.split('\n').find((l) => l.includes('1.23 s'))!;
    expect(mdRow).toContain('0 ms');
    expect(mdRow).not.toMatch(/-0(\.0+)?( ms|%| s)/);
    // The viewer's formatter (web/src/format.ts) follows the same rule.
    expect(signed(-0.0004, 3)).toBe('0.000');
    expect(signed(-0.0004, 4)).toBe('-0.0004');
    expect(signed(0.25, 2)).toBe('+0.25');
  });
});
