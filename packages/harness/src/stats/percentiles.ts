import { itemAt } from '../core/item-at.js';
import { normalUpperTail } from './normal.js';

/**
 * Quantile of an ascending-sorted array with linear interpolation between order statistics
 * (Hyndman & Fan type 7, the default of R, NumPy and spreadsheets). Returns NaN for an empty array.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (q <= 0) return itemAt(sorted, 0);
  if (q >= 1) return itemAt(sorted, n - 1);
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const below = itemAt(sorted, lo);
  return below + (h - lo) * (itemAt(sorted, hi) - below);
}

/** Quantile of unsorted values (q in [0, 1]); the input is not modified. */
export function quantile(values: readonly number[], q: number): number {
  return quantileSorted(Float64Array.from(values).sort(), q);
}

/** Percentile of unsorted values (p in [0, 100]). */
export function percentile(values: readonly number[], p: number): number {
  return quantile(values, p / 100);
}

/** Arithmetic mean; NaN for an empty array. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * Distribution-free confidence interval for a quantile from order statistics: the ranks around n·q given
 * by the normal approximation to Binomial(n, q) (Conover, Practical Nonparametric Statistics, §3.2).
 * Returns null for an empty input, and when the sample is too small to bound an end at this confidence: the
 * sample's largest value is above the q-quantile only with probability 1 - q^n, so when q^n exceeds the tail
 * (alpha / 2) no order statistic bounds it from above (likewise (1 - q)^n from below). Capping the end at the
 * sample's max claimed 95% for the p95 of 10 runs, which that max covers 40% of the time.
 */
export function quantileInterval(
  sorted: ArrayLike<number>,
  q: number,
  z = 1.959963984540054,
): { lower: number; upper: number } | null {
  const n = sorted.length;
  if (n === 0) return null;
  const tail = normalUpperTail(z);
  const centre = n * q;
  const half = z * Math.sqrt(n * q * (1 - q));
  const loRank = Math.floor(centre - half) - 1;
  const hiRank = Math.ceil(centre + half);
  if ((loRank < 0 && (1 - q) ** n > tail) || (hiRank > n - 1 && q ** n > tail)) return null;
  const lo = Math.max(0, Math.min(n - 1, loRank));
  const hi = Math.max(0, Math.min(n - 1, hiRank));
  return { lower: itemAt(sorted, lo), upper: itemAt(sorted, hi) };
}

/** The fewest runs whose extreme order statistics bound the q-quantile at both ends with this z (see above). */
export function runsToBoundQuantile(q: number, z = 1.959963984540054): number {
  const tail = normalUpperTail(z);
  const side = Math.max(q, 1 - q);
  return side <= 0 ? 1 : Math.ceil(Math.log(tail) / Math.log(side));
}
