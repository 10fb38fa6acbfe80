import { describe, expect, it } from 'vitest';
import { itemAt } from '../../../src/core/item-at.js';
import { erfc } from '../../../src/stats/normal.js';
import { holmAdjust, mcnemarExact, pairedBootstrap, signFlipTest } from '../../../src/stats/paired.js';
import { quantileSorted } from '../../../src/stats/percentiles.js';

/** Exact two-sided McNemar p by brute force in integer arithmetic: 2 * sum_{i<=k} C(n, i) / 2^n. */
function mcnemarReference(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let coef = 1n;
  let sum = 0n;
  for (let i = 0; i <= k; i++) {
    sum += coef;
    coef = (coef * BigInt(n - i)) / BigInt(i + 1);
  }
  const scale = 10n ** 40n;
  const ratio = (2n * sum * scale) / 2n ** BigInt(n);
  return Math.min(1, Number(ratio) / 1e40);
}

/** Every one of the n^n bootstrap resamples of a tiny sample, as sorted means. */
function allResampleMeans(d: number[]): number[] {
  const n = d.length;
  const means: number[] = [];
  const idx = new Array<number>(n).fill(0);
  for (;;) {
    means.push(idx.reduce((s, i) => s + itemAt(d, i), 0) / n);
    let pos = 0;
    while (pos < n) {
      idx[pos] = itemAt(idx, pos) + 1;
      if (idx[pos] !== n) break;
      idx[pos++] = 0;
    }
    if (pos === n) break;
  }
  return means.sort((a, b) => a - b);
}

describe('mcnemarExact', () => {
  it('matches the binomial sign test computed by hand', () => {
    // 1 vs 9 discordant pairs: 2 * (1 + 10) / 1024.
    expect(mcnemarExact(1, 9).p_value).toBeCloseTo(0.021484375, 12);
    expect(mcnemarExact(9, 1).p_value).toBeCloseTo(0.021484375, 12);
    expect(mcnemarExact(0, 10).p_value).toBeCloseTo(2 / 1024, 12);
  });

  it('matches brute-force integer enumeration, small and large', () => {
    for (const [b, c] of [
      [0, 0],
      [3, 3],
      [2, 7],
      [5, 12],
      [30, 45],
      [950, 1050],
      [4000, 4300],
    ] as const) {
      const ref = mcnemarReference(b, c);
      const got = mcnemarExact(b, c).p_value;
      expect(Math.abs(got - ref) / Math.max(ref, 1e-300)).toBeLessThan(1e-9);
    }
  });

  it('stays finite and tiny for hundreds of thousands of pairs instead of underflowing to NaN', () => {
    const p = mcnemarExact(40_000, 60_000).p_value;
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(1e-100);
    expect(mcnemarExact(50_000, 50_000).p_value).toBe(1);
  });

  it('rejects counts that are not non-negative integers', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('pairedBootstrap', () => {
  const sample = [-0.5, 0.1, 0.3, 0.9, 1.4];

  it('gives the same interval for the same seed and a different one for another seed', () => {
    const a = pairedBootstrap(sample, { seed: 7 });
    const b = pairedBootstrap(sample, { seed: 7 });
    const c = pairedBootstrap(sample, { seed: 8 });
    expect(a).toEqual(b);
    expect([c.lower, c.upper]).not.toEqual([a.lower, a.upper]);
    expect(a.mean).toBeCloseTo(0.44, 12);
  });

  it('agrees with the exact bootstrap distribution enumerated over all n^n resamples', () => {
    const exact = allResampleMeans(sample);
    const r = pairedBootstrap(sample, { resamples: 20_000, seed: 1 });
    const cdf = (x: number) => exact.filter((m) => m <= x + 1e-12).length / exact.length;
    // The percentile endpoints sit at the exact distribution's 2.5% and 97.5% points, up to Monte Carlo error.
    expect(cdf(r.lower)).toBeGreaterThan(0.015);
    expect(cdf(r.lower)).toBeLessThan(0.04);
    expect(cdf(r.upper)).toBeGreaterThan(0.96);
    expect(cdf(r.upper)).toBeLessThan(0.99);
    expect(Math.abs(r.lower - quantileSorted(exact, 0.025))).toBeLessThan(0.06);
    expect(Math.abs(r.upper - quantileSorted(exact, 0.975))).toBeLessThan(0.06);
  });

  it('collapses to a point when every difference is the same, and handles an empty sample', () => {
    expect(pairedBootstrap([0.2, 0.2, 0.2])).toMatchObject({ mean: 0.2, lower: 0.2, upper: 0.2 });
    expect(pairedBootstrap([])).toMatchObject({ n: 0, mean: 0, lower: 0, upper: 0 });
  });

  it('agrees with normal theory on large samples, on both the sparse and the dense resampling path', () => {
    // 5% changed pairs (sparse path) and all pairs changed (dense path), n = 4000.
    const n = 4000;
    const sparse = Array.from({ length: n }, (_, i) => (i % 20 === 0 ? (i % 40 === 0 ? 1 : -0.6) : 0));
    const dense = Array.from({ length: n }, (_, i) => ((i * 7919) % 101) / 100 - 0.45);
    for (const d of [sparse, dense]) {
      const mean = d.reduce((s, x) => s + x, 0) / n;
      const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
      const half = (1.959963984540054 * sd) / Math.sqrt(n);
      const r = pairedBootstrap(d, { resamples: 4000 });
      expect(Math.abs(r.lower - (mean - half)) / half).toBeLessThan(0.08);
      expect(Math.abs(r.upper - (mean + half)) / half).toBeLessThan(0.08);
    }
  });

  it('reduces resamples for very large inputs but never below the floor, and says so', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => (i % 7) - 3);
    const r = pairedBootstrap(big);
    expect(r.resamples).toBe(500);
    expect(pairedBootstrap(sample).resamples).toBe(2000);
    expect(r.lower).toBeLessThan(0);
    expect(r.upper).toBeGreaterThan(0);
  });
});

describe('signFlipTest', () => {
  /** Reference by recursion over sign choices (independent of the bit-mask loop). */
  function reference(d: number[]): number {
    const observed = Math.abs(d.reduce((s, x) => s + x, 0));
    let extreme = 0;
    let total = 0;
    const walk = (i: number, s: number) => {
      if (i === d.length) {
        total++;
        if (Math.abs(s) >= observed - 1e-9) extreme++;
        return;
      }
      walk(i + 1, s + itemAt(d, i));
      walk(i + 1, s - itemAt(d, i));
    };
    walk(0, 0);
    return extreme / total;
  }

  it('is exact for small samples', () => {
    const d = [0.3, -0.1, 0.5, 0.2, 0.4, 0.1, -0.05, 0.6];
    const r = signFlipTest(d);
    expect(r.exact).toBe(true);
    expect(r.p_value).toBeCloseTo(reference(d), 12);
  });

  it('reduces to the exact McNemar test for -1/0/+1 differences', () => {
    const d = [...Array(2).fill(1), ...Array(9).fill(-1), ...Array(5).fill(0)];
    expect(signFlipTest(d).p_value).toBeCloseTo(mcnemarExact(9, 2).p_value, 12);
  });

  it('Monte Carlo p-values match the exact test on -1/+1 data and are never zero', () => {
    // 20 vs 5 changed pairs out of 40: the exact answer is McNemar's.
    const d = [...Array(20).fill(-1), ...Array(5).fill(1), ...Array(15).fill(0)];
    const r = signFlipTest(d, { resamples: 20_000, seed: 3 });
    expect(r.exact).toBe(false);
    expect(Math.abs(r.p_value - mcnemarExact(20, 5).p_value)).toBeLessThan(0.002);
    const strong = signFlipTest(Array(40).fill(-1), { resamples: 1000 });
    expect(strong.p_value).toBeCloseTo(1 / 1001, 12);
    const null0 = signFlipTest(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 0.1 : -0.1)),
      { resamples: 5000 },
    );
    expect(null0.p_value).toBeGreaterThan(0.9);
  });

  it('uses the normal limit for thousands of changed pairs, matching McNemar on -1/+1 data', () => {
    const d = [...Array(1100).fill(-1), ...Array(1000).fill(1), ...Array(3000).fill(0)];
    const r = signFlipTest(d);
    expect(r.method).toBe('normal');
    const exact = mcnemarExact(1100, 1000).p_value;
    expect(Math.abs(r.p_value - exact) / exact).toBeLessThan(0.02);
  });

  it('returns p = 1 when nothing changed', () => {
    expect(signFlipTest([0, 0, 0]).p_value).toBe(1);
  });
});

describe('erfc', () => {
  it('matches tabulated values', () => {
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207, 7);
    expect(erfc(2)).toBeCloseTo(0.004677735, 8);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 7);
    expect(Math.abs(erfc(1.959963984540054 / Math.SQRT2) - 0.05)).toBeLessThan(1e-7);
  });
});

describe('holmAdjust', () => {
  it('matches a hand-computed step-down adjustment and keeps untested entries null', () => {
    // Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max(0.06, 0.04) = 0.06.
    const adj = holmAdjust([0.01, 0.04, null, 0.03, 0.005]);
    expect(adj[0]).toBeCloseTo(0.03, 12);
    expect(adj[1]).toBeCloseTo(0.06, 12);
    expect(adj[2]).toBeNull();
    expect(adj[3]).toBeCloseTo(0.06, 12);
    expect(adj[4]).toBeCloseTo(0.02, 12);
  });

  it('caps at 1', () => {
    expect(holmAdjust([0.6, 0.7])).toEqual([1, 1]);
  });
});
