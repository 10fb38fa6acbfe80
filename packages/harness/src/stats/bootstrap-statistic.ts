import { quantileSorted } from './percentiles.js';
import { DEFAULT_SEED, seededRandom } from './rng.js';
import type { Interval } from './wilson.js';

/**
 * Percentile bootstrap 95% interval (Efron & Tibshirani 1993, ch. 13) of any statistic of `n` items, such as an
 * agreement coefficient over cases: each resample draws `n` item indices with replacement and `statistic` turns
 * them into a value. Resamples where the statistic is undefined (NaN) are dropped. Seeded, so reports are
 * reproducible. Null when n is 0 or no resample gives a value.
 */
export function bootstrapStatistic(
  n: number,
  statistic: (indices: readonly number[]) => number,
  options: { iterations?: number; seed?: number; level?: number } = {},
): (Interval & { iterations: number; seed: number }) | null {
  if (n <= 0) return null;
  const iterations = options.iterations ?? 2000;
  const seed = options.seed ?? DEFAULT_SEED;
  const level = options.level ?? 0.95;
  const random = seededRandom(seed);
  const values: number[] = [];
  const indices: number[] = new Array(n);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    const v = statistic(indices);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return { lower: quantileSorted(values, tail), upper: quantileSorted(values, 1 - tail), iterations, seed };
}
