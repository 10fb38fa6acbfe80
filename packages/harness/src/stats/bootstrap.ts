import { quantileSorted } from './percentiles.js';
import { DEFAULT_SEED, seededRandom } from './rng.js';
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

/** Resample count: 2000, but capped so that resampling costs about 5 million draws on huge runs. */
export function bootstrapIterations(units: number, requested?: number): number {
  if (requested !== undefined) return requested;
  return units <= 2500 ? 2000 : Math.max(200, Math.floor(5_000_000 / units));
}

/**
 * Percentile bootstrap confidence interval for a mean (Efron & Tibshirani 1993, ch. 13), with a fixed seed
 * so reports are reproducible. With `clusters`, whole clusters are resampled and the statistic is the
 * ratio of sums (the mean over all values drawn), which respects correlation between repeats of one case.
 * Returns null for an empty input.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): BootstrapInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? DEFAULT_SEED;
  // Collapse to per-cluster sums and counts: each resample then costs O(clusters), not O(values).
  let sums: Float64Array;
  let counts: Float64Array;
  if (options.clusters) {
    if (options.clusters.length !== n) throw new RangeError('clusters must have one key per value');
    const index = new Map<string, number>();
    const s: number[] = [];
    const c: number[] = [];
    for (let i = 0; i < n; i++) {
      const key = options.clusters[i];
      let k = index.get(key);
      if (k === undefined) {
        k = s.length;
        index.set(key, k);
        s.push(0);
        c.push(0);
      }
      s[k] += values[i];
      c[k] += 1;
    }
    sums = Float64Array.from(s);
    counts = Float64Array.from(c);
  } else {
    sums = Float64Array.from(values);
    counts = new Float64Array(n).fill(1);
  }
  const k = sums.length;
  const iterations = bootstrapIterations(k, options.iterations);
  const rand = seededRandom(seed);
  const stats = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    let s = 0;
    let c = 0;
    for (let j = 0; j < k; j++) {
      const pick = Math.floor(rand() * k);
      s += sums[pick];
      c += counts[pick];
    }
    stats[b] = s / c;
  }
  stats.sort();
  const alpha = (1 - level) / 2;
  return {
    lower: quantileSorted(stats, alpha),
    upper: quantileSorted(stats, 1 - alpha),
    level,
    iterations,
    clusters: k,
    seed,
  };
}
