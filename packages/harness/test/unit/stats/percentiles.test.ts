import { describe, expect, it } from 'vitest';
import { checkThresholds } from '../../../src/runner/thresholds.js';
import {
  mean,
  percentile,
  quantile,
  quantileInterval,
  quantileSorted,
  runsToBoundQuantile,
} from '../../../src/stats/percentiles.js';
import { calc, res } from '../metrics/helpers.js';

describe('percentiles', () => {
  it('interpolates like NumPy (type 7)', () => {
    const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(v, 50)).toBe(5.5);
    expect(percentile(v, 95)).toBeCloseTo(9.55, 10);
    expect(percentile(v, 99)).toBeCloseTo(9.91, 10);
    expect(quantile([10, 1, 5], 0.5)).toBe(5);
  });
  it('handles ends, single values and empty input', () => {
    expect(quantileSorted([1, 2], 0)).toBe(1);
    expect(quantileSorted([1, 2], 1)).toBe(2);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(mean([])).toBeNaN();
    expect(mean([1, 2])).toBe(1.5);
  });
  it('does not modify its input', () => {
    const v = [3, 1, 2];
    quantile(v, 0.5);
    expect(v).toEqual([3, 1, 2]);
  });
});

describe('order-statistic interval of a quantile', () => {
  const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  /** Exact chance that the sample's largest of n values lies above the q-quantile: 1 - q^n (plain binomial). */
  const maxCovers = (n: number, q: number) => 1 - q ** n;

  it('is unbounded (null) when even the sample max covers the quantile less than 97.5% of the time', () => {
    // p95 of 10 runs: the max lies above the true p95 only 40% of the time; it used to be given as the 95% upper end.
    expect(maxCovers(10, 0.95)).toBeCloseTo(0.401, 3);
    expect(quantileInterval(ascending(10), 0.95)).toBeNull();
    expect(quantileInterval(ascending(71), 0.95)).toBeNull();
    // From 72 runs the max covers it (1 - 0.95^72 = 0.9751): the interval exists and ends at the max.
    expect(maxCovers(72, 0.95)).toBeGreaterThanOrEqual(0.975);
    expect(quantileInterval(ascending(72), 0.95)?.upper).toBe(72);
    // The median needs 6 runs (0.5^6 = 1.6% per end), the p99 368.
    expect(quantileInterval(ascending(5), 0.5)).toBeNull();
    expect(quantileInterval(ascending(6), 0.5)).toEqual({ lower: 1, upper: 6 });
    expect([runsToBoundQuantile(0.5), runsToBoundQuantile(0.95), runsToBoundQuantile(0.99)]).toEqual([6, 72, 368]);
    for (const q of [0.5, 0.9, 0.95, 0.99]) {
      const n = runsToBoundQuantile(q);
      expect(maxCovers(n, q), `q=${q}`).toBeGreaterThanOrEqual(0.975);
      expect(maxCovers(n - 1, q), `q=${q}`).toBeLessThan(0.975);
    }
  });

  it('keeps the inner order statistics once the sample is large', () => {
    const ci = quantileInterval(ascending(1000), 0.95)!;
    expect(ci.lower).toBeGreaterThan(930);
    expect(ci.upper).toBeLessThan(970);
    expect(ci.lower).toBeLessThan(950);
    expect(ci.upper).toBeGreaterThan(950);
  });

  it('a p95 latency gate on the upper bound fails on 10 fast runs instead of passing on their max', () => {
    const fast = Array.from({ length: 10 }, (_, i) => res({ test_id: `c${i}`, output: { latency: 0.1 } }));
    const p95 = calc('p95_latency', fast);
    expect(p95.value).toBeCloseTo(0.1, 10);
    expect(p95.interval).toBeNull();
    expect(p95.details.interval_note).toBe('too few runs to bound the 95th percentile at 95%: 10 run(s), 72 needed');
    const outcome = checkThresholds({ p95_latency: p95 }, { p95_latency: { maximum: 1, on: 'upper_bound' } });
    expect(outcome.passed).toBe(false);
  });
});
