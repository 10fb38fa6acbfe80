import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentComparator } from '../../../src/comparison/comparator.js';
import { comparisonConsole } from '../../../src/comparison/render-console.js';
import { comparisonMarkdown } from '../../../src/comparison/render-markdown.js';
import { displayOf, formatChange, formatValueAs, percentChangeApplies } from '../../../src/core/display.js';
import { Experiment } from '../../../src/core/index.js';
import { validateSuite } from '../../../src/suites/loader.js';
import '../../helpers/plugins.js';
import { cases, experiment } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-headline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two soclab-like runs: pass rate goes 0 → 1 while attack success goes 87% → 0% and authority L1 → L4. */
function pair(headline?: string) {
  const metrics = (asr: number, level: number) => ({
    attack_success_rate: {
      name: 'attack_success_rate',
      value: asr,
      formatted_value: `${(asr * 100).toFixed(1)}% (${Math.round(asr * 30)}/30)`,
      direction: 'lower_is_better' as const,
      display: 'rate' as const,
    },
    authority_level: { name: 'authority_level', value: level, formatted_value: `L${level}`, display: 'level' as const },
  });
  const withHeadline = (e: Experiment) => (headline ? Experiment.parse({ ...e, suite: { ...e.suite, headline } }) : e);
  return [
    withHeadline(
      experiment(
        'base',
        cases(4, () => false),
        { metrics: metrics(26 / 30, 1) },
      ),
    ),
    withHeadline(
      experiment(
        'cand',
        cases(4, () => true),
        { metrics: metrics(0, 4) },
      ),
    ),
  ] as const;
}

describe('display kinds (degenerate values first)', () => {
  it('no change reads 0 whatever the kind; non-finite values read as a dash', () => {
    for (const kind of ['rate', 'level', 'duration', 'usd', 'number'] as const) {
      expect(formatChange(kind, 0.5, 0.5)).toBe('0');
      expect(formatValueAs(kind, Number.NaN)).toBe('–');
    }
  });

  it('a level changes as L1→L4 and a rate in points; neither has a percent change', () => {
    expect(formatChange('level', 1, 4)).toBe('L1→L4');
    expect(formatChange('rate', 0.8667, 0)).toBe('-86.7 pt');
    expect(formatChange('duration', 0.32, 0.09)).toBe('-230 ms');
    expect(percentChangeApplies('level')).toBe(false);
    expect(percentChangeApplies('rate')).toBe(false);
    expect(percentChangeApplies('number')).toBe(true);
    expect(displayOf({ formatted_value: '80.0%' })).toBe('rate');
    expect(displayOf({ formatted_value: 'L3', display: 'level' })).toBe('level');
  });
});

describe('harness compare leads with the suite headline and shows each metric in its kind', () => {
  it('with no headline declared nothing changes: no Headline line, comparison.headline null', async () => {
    const [b, c] = pair();
    const cmp = await ExperimentComparator.compare(b, c);
    expect(cmp.headline).toBeNull();
    expect(comparisonConsole(cmp, { color: false })).not.toContain('Headline');
  });

  it('an ordinal is never a percent change and a rate changes in points', async () => {
    const [b, c] = pair();
    const cmp = await ExperimentComparator.compare(b, c);
    expect(cmp.deltas.authority_level).toMatchObject({ pct_delta: null, display: 'level' });
    expect(cmp.deltas.attack_success_rate).toMatchObject({ pct_delta: null, display: 'rate' });
    const text = comparisonConsole(cmp, { color: false });
    expect(text).toMatch(/authority_level\s*│\s*L1\s*│\s*L4\s*│\s*L1→L4\s*│\s*—/);
    expect(text).not.toContain('+300');
    expect(text).toMatch(/attack_success_rate.*-86\.7 pt/);
  });

  it('the declared headline opens the console and Markdown output, with its direction and verdict', async () => {
    const [b, c] = pair('attack_success_rate');
    const cmp = await ExperimentComparator.compare(b, c);
    expect(cmp.headline).toBe('attack_success_rate');
    const line = 'attack_success_rate (lower is better): 86.7% (26/30) → 0.0% (0/30), -86.7 pt, better';
    const text = comparisonConsole(cmp, { color: false });
    expect(text).toContain(`Headline ${line}`);
    expect(text.indexOf('Headline')).toBeLessThan(text.indexOf('pass_rate'));
    expect(comparisonMarkdown(cmp)).toContain(`**Headline:** ${line.replace(/_/g, '\\_')}`);
  });

  it('a headline one run lacks is not shown (null), not invented', async () => {
    const [b, c] = pair('no_such_metric');
    expect((await ExperimentComparator.compare(b, c)).headline).toBeNull();
  });
});

describe('suite files declare headline and display kinds', () => {
  const suite = (extra: string) => {
    const path = join(dir, `s${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      path,
      `version: "1.0"\nname: s\nagent: { adapter: echo }\nmetrics: [success_rate, latency]\n${extra}tests:\n  - id: a\n    input: hi\n    expected: hi\n`,
    );
    return path;
  };

  it('accepts a headline and display kinds naming its metrics', async () => {
    const { suite: s, issues } = await validateSuite(
      suite('headline: success_rate\ndisplay: { latency: duration }\n'),
      { checkPlugins: false },
    );
    expect(issues).toEqual([]);
    expect(s?.headline).toBe('success_rate');
    expect(s?.display).toEqual({ latency: 'duration' });
  });

  it('a headline or display entry naming no metric, or an unknown kind, is a located error', async () => {
    const located = async (extra: string) =>
      (await validateSuite(suite(extra), { checkPlugins: false })).issues
        .map((i) => `${i.line}:${i.col} ${i.path} ${i.message}`)
        .join('\n');
    const names = await located('headline: sucess_rate\ndisplay: { latncy: rate }\n');
    expect(names).toMatch(/^5:11 headline headline 'sucess_rate' is not in metrics \(success_rate, latency\)$/m);
    expect(names).toMatch(/^6:\d+ display\.latncy display kind for 'latncy', which is not in metrics/m);
    expect(await located('display: { latency: percent }\n')).toMatch(/^5:\d+ display\.latency .*"rate"/m);
  });
});
