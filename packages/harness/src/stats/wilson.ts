/** Two-sided 95% normal quantile, exact to double precision (simple-statistics' probit is off by 2.8e-3). */
export const Z95 = 1.959963984540054;

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * Wilson score interval for a binomial proportion (Wilson 1927). Unlike the normal approximation it stays
 * inside [0, 1] and behaves at 0/n and n/n. With n = 0 the interval is the whole range.
 */
export function wilson(successes: number, n: number, z: number = Z95): Interval {
  if (!Number.isFinite(n) || n <= 0) return { lower: 0, upper: 1 };
  if (successes < 0 || successes > n) throw new RangeError(`successes (${successes}) must be between 0 and n (${n})`);
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At the extremes the bound is exactly 0 or 1; floating error would otherwise give 1e-17.
  return {
    lower: successes === 0 ? 0 : Math.max(0, centre - half),
    upper: successes === n ? 1 : Math.min(1, centre + half),
  };
}
