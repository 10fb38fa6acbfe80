import { itemAt } from '../core/item-at.js';
import { quantileSorted } from './percentiles.js';
import { DEFAULT_SEED } from './rng.js';
import type { Interval } from './wilson.js';

export interface BootstrapOptions {
  /** Cluster key per value (e.g. the case id when cases are repeated): clusters are resampled whole. */
  clusters?: readonly string[];
  /** Resamples; default 2000, reduced automatically for very large inputs (see `bootstrapIterations`). */
  iterations?: number;
  level?: number;
  seed?: number;
}

export interface BootstrapInterval extends Interval {
  level: number;
  iterations: number;
  clusters: number;
  seed: number;
}

/**
 * Resample count: 2000 up to 1,000 units (cases), then fewer so one interval costs about 2 million draws,
 * never below 200. With thousands of cases the interval is narrow and 200-600 resamples place its ends
 * well within its own width.
 */
export function bootstrapIterations(units: number, requested?: number): number {
  if (requested !== undefined) return requested;
  return Math.max(200, Math.min(2000, Math.floor(2_000_000 / Math.max(1, units))));
}

/**
 * Percentile bootstrap confidence interval for a mean (Efron & Tibshirani 1993, ch. 13), with a fixed seed
 * so reports are reproducible. With `clusters`, whole clusters are resampled and the statistic is the
 * ratio of sums (the mean over all values drawn), which respects correlation between repeats of one case.
 * Returns null for an empty input.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): BootstrapInterval | null {
  return bootstrapRatio(values, null, options);
}

/**
 * Percentile bootstrap interval for a ratio of sums, sum(numerators) / sum(denominators) (e.g. tokens per
 * passed case). `denominators` null means 1 per value (a mean). Resamples whose denominator is 0 are
 * dropped. Returns null for an empty input or when no resample has a positive denominator.
 */
export function bootstrapRatio(
  numerators: readonly number[],
  denominators: readonly number[] | null,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const n = numerators.length;
  if (n === 0) return null;
  if (denominators && denominators.length !== n) throw new RangeError('denominators must have one entry per value');
  const level = options.level ?? 0.95;
  const seed = options.seed ?? DEFAULT_SEED;
  // Collapse to per-cluster sums: each resample then costs O(clusters), not O(values).
  let sums: Float64Array;
  let counts: Float64Array;
  if (options.clusters) {
    if (options.clusters.length !== n) throw new RangeError('clusters must have one key per value');
    const index = new Map<string, number>();
    const s: number[] = [];
    const c: number[] = [];
    for (const [i, key] of options.clusters.entries()) {
      let k = index.get(key);
      if (k === undefined) {
        k = s.length;
        index.set(key, k);
        s.push(0);
        c.push(0);
      }
      s[k] = itemAt(s, k) + itemAt(numerators, i);
      c[k] = itemAt(c, k) + (denominators ? itemAt(denominators, i) : 1);
    }
    sums = Float64Array.from(s);
    counts = Float64Array.from(c);
  } else {
    sums = Float64Array.from(numerators);
    counts = denominators ? Float64Array.from(denominators) : new Float64Array(n).fill(1);
  }
  const k = sums.length;
  const iterations = bootstrapIterations(k, options.iterations);
  const stats = new Float64Array(iterations);
  let kept = 0;
  // The hot loop (2 million draws for 1,000 cases) runs seededRandom's mulberry32 steps inline, on the same state, so
  // the draws are exactly seededRandom(seed)'s (rng.test.ts pins that generator); a closure call per draw, and the
  // generic itemAt (megamorphic in the bundle), made it 2-4x slower in a fresh process. `pick` is in [0, k) by
  // construction; `?? 0` only satisfies the index type.
  let state = seed >>> 0;
  for (let b = 0; b < iterations; b++) {
    let s = 0;
    let c = 0;
    for (let j = 0; j < k; j++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const pick = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * k);
      s += sums[pick] ?? 0;
      c += counts[pick] ?? 0;
    }
    if (c > 0) stats[kept++] = s / c;
  }
  if (kept === 0) return null;
  const sorted = stats.subarray(0, kept).sort();
  const alpha = (1 - level) / 2;
  return {
    lower: quantileSorted(sorted, alpha),
    upper: quantileSorted(sorted, 1 - alpha),
    level,
    iterations,
    clusters: k,
    seed,
  };
}
