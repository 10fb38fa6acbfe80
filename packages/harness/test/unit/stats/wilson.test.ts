import { describe, expect, it } from 'vitest';
import { wilson, Z95 } from '../../../src/stats/wilson.js';

describe('wilson', () => {
  it('uses the exact 97.5% normal quantile', () => {
    expect(Z95).toBe(1.959963984540054);
  });
  it('matches the reference intervals', () => {
    const a = wilson(0, 30);
    expect(a.lower).toBe(0);
    expect(a.upper).toBeCloseTo(0.1135, 4);
    const b = wilson(26, 30);
    expect(b.lower).toBeCloseTo(0.703, 3);
    expect(b.upper).toBeCloseTo(0.947, 3);
    const c = wilson(7, 10);
    expect(c.lower).toBeCloseTo(0.3968, 4);
    expect(c.upper).toBeCloseTo(0.8922, 4);
  });
  it('is symmetric and pinned at the extremes', () => {
    const lo = wilson(3, 20);
    const hi = wilson(17, 20);
    expect(lo.lower).toBeCloseTo(1 - hi.upper, 12);
    expect(wilson(20, 20).upper).toBe(1);
    expect(wilson(20, 20).lower).toBeLessThan(1);
  });
  it('narrows as n grows', () => {
    const small = wilson(5, 10);
    const big = wilson(500, 1000);
    expect(big.upper - big.lower).toBeLessThan(small.upper - small.lower);
  });
  it('n = 0 gives the whole range; impossible counts throw', () => {
    expect(wilson(0, 0)).toEqual({ lower: 0, upper: 1 });
    expect(() => wilson(11, 10)).toThrow(RangeError);
  });
});
