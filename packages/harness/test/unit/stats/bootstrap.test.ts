import { describe, expect, it } from 'vitest';
import { bootstrapIterations, bootstrapMean, bootstrapRatio } from '../../../src/stats/bootstrap.js';
import { quantileSorted } from '../../../src/stats/percentiles.js';
import { seededRandom } from '../../../src/stats/rng.js';

describe('bootstrapMean', () => {
  const rand = seededRandom(1);
  const values = Array.from({ length: 200 }, () => rand() * 10);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;

  it('draws its resamples from seededRandom(seed): the same interval as the textbook loop, to the last bit', () => {
    // The textbook percentile bootstrap of a ratio of sums, written plainly with the shared generator.
    const reference = (num: number[], den: number[] | null, iterations: number, seed: number, level = 0.95) => {
      const rand = seededRandom(seed);
      const stats: number[] = [];
      for (let b = 0; b < iterations; b++) {
        let s = 0;
        let c = 0;
        for (let j = 0; j < num.length; j++) {
          const pick = Math.floor(rand() * num.length);
          s += num[pick] ?? 0;
          c += den ? (den[pick] ?? 0) : 1;
        }
        if (c > 0) stats.push(s / c);
      }
      const sorted = Float64Array.from(stats).sort();
      return [quantileSorted(sorted, (1 - level) / 2), quantileSorted(sorted, 1 - (1 - level) / 2)];
    };
    const r = seededRandom(11);
    for (const n of [1, 2, 7, 300]) {
      const values = Array.from({ length: n }, () => r() * 10);
      const weights = Array.from({ length: n }, () => Math.floor(r() * 3));
      const mean = bootstrapMean(values, { iterations: 250, seed: 5 });
      expect([mean?.lower, mean?.upper]).toEqual(reference(values, null, 250, 5));
      const ratio = bootstrapRatio(values, weights, { iterations: 120, seed: 9, level: 0.9 });
      if (ratio) expect([ratio.lower, ratio.upper]).toEqual(reference(values, weights, 120, 9, 0.9));
      else expect(weights.every((w) => w === 0)).toBe(true);
    }
  });

  it('brackets the mean and is reproducible with the default seed', () => {
    const a = bootstrapMean(values)!;
    expect(a.lower).toBeLessThan(mean);
    expect(a.upper).toBeGreaterThan(mean);
    expect(bootstrapMean(values)).toEqual(a);
    expect(a.iterations).toBe(2000);
    expect(a.level).toBe(0.95);
  });
  it('is close to the normal-theory interval for a large sample', () => {
    const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
    const se = sd / Math.sqrt(values.length);
    const b = bootstrapMean(values)!;
    expect(b.upper - b.lower).toBeGreaterThan(2 * 1.96 * se * 0.85);
    expect(b.upper - b.lower).toBeLessThan(2 * 1.96 * se * 1.15);
  });
  it('a different seed gives a slightly different interval', () => {
    expect(bootstrapMean(values, { seed: 7 })).not.toEqual(bootstrapMean(values));
  });
  it('clustering by case widens the interval when repeats are correlated', () => {
    // 20 cases x 5 identical repeats: the effective sample size is 20, not 100.
    const caseValues = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const flat = caseValues.flatMap((v) => [v, v, v, v, v]);
    const ids = caseValues.flatMap((_, i) => Array.from({ length: 5 }, () => `c${i}`));
    const naive = bootstrapMean(flat)!;
    const clustered = bootstrapMean(flat, { clusters: ids })!;
    expect(clustered.clusters).toBe(20);
    expect(clustered.upper - clustered.lower).toBeGreaterThan(1.8 * (naive.upper - naive.lower));
  });
  it('constant data gives a zero-width interval; empty gives null', () => {
    const c = bootstrapMean([0.5, 0.5, 0.5])!;
    expect(c.lower).toBe(0.5);
    expect(c.upper).toBe(0.5);
    expect(bootstrapMean([])).toBeNull();
  });
  it('rejects a cluster list of the wrong length', () => {
    expect(() => bootstrapMean([1, 2], { clusters: ['a'] })).toThrow(RangeError);
  });
  it('reduces resamples for huge inputs but never below 200', () => {
    expect(bootstrapIterations(100)).toBe(2000);
    expect(bootstrapIterations(1000)).toBe(2000);
    expect(bootstrapIterations(4000)).toBe(500);
    expect(bootstrapIterations(100_000)).toBe(200);
    expect(bootstrapIterations(50, 300)).toBe(300);
  });
});
