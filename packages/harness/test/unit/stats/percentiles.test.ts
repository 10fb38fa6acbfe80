import { describe, expect, it } from 'vitest';
import { mean, percentile, quantile, quantileSorted } from '../../../src/stats/percentiles.js';

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
