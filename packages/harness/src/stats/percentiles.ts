import { itemAt } from '../core/item-at.js';

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
 * Returns null for an empty input. At small n the interval is wide, as it should be.
 */
export function quantileInterval(
  sorted: ArrayLike<number>,
  q: number,
  z = 1.959963984540054,
): { lower: number; upper: number } | null {
  const n = sorted.length;
  if (n === 0) return null;
  const centre = n * q;
  const half = z * Math.sqrt(n * q * (1 - q));
  const lo = Math.max(0, Math.min(n - 1, Math.floor(centre - half) - 1));
  const hi = Math.max(0, Math.min(n - 1, Math.ceil(centre + half)));
  return { lower: itemAt(sorted, lo), upper: itemAt(sorted, hi) };
}
