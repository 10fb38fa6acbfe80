import { describe, expect, it } from 'vitest';
import { checkMetricReferences, type Locate } from '../../../src/suites/loader.js';

// A locator that records the field path, so the test reads which field each issue points at.
const locate: Locate = (path, message) => ({ file: 'suite.yaml', line: 1, col: 1, path: path.join('.'), message });
const paths = (issues: { path: string }[]) => issues.map((i) => i.path);

describe('checkMetricReferences (suite validation phase)', () => {
  it('reports every reference when the suite names no metric at all', () => {
    const issues = checkMetricReferences(
      { thresholds: { accuracy: { min: 0.9 } }, headline: 'accuracy', display: { accuracy: 'rate' } },
      [],
      locate,
    );
    expect(paths(issues)).toEqual(['thresholds.accuracy', 'headline', 'display.accuracy']);
    expect(issues[0]?.message).toBe("threshold on 'accuracy', which is not in metrics ()");
  });

  it('accepts references to listed metrics, case-insensitively, with or without options', () => {
    const issues = checkMetricReferences(
      {
        thresholds: { Accuracy: { min: 0.9 }, latency: { max: 2 } },
        headline: 'ACCURACY',
        display: { latency: 'level' },
      },
      ['accuracy', { name: 'latency', options: {} }],
      locate,
    );
    expect(issues).toEqual([]);
  });

  it('names the metrics that exist when a reference is unknown', () => {
    const [issue] = checkMetricReferences({ headline: 'acuracy' }, ['accuracy', 'cost'], locate);
    expect(issue?.message).toBe("headline 'acuracy' is not in metrics (accuracy, cost)");
  });

  it('reports a metric listed twice at its second position (results are keyed by name)', () => {
    const issues = checkMetricReferences({}, ['accuracy', 'cost', { name: 'Accuracy' }], locate);
    expect(paths(issues)).toEqual(['metrics.2']);
    expect(issues[0]?.message).toContain('also metrics[0]');
  });
});
