import { Z95 } from './wilson.js';

/** Standard normal quantile for 80% power (Φ⁻¹(0.8)). */
export const Z80 = 0.8416212335729143;

export interface PowerOptions {
  /** Success rate of the baseline (defaults to 0.5, the worst case). */
  baseline?: number;
  /** Two-sided significance quantile (default z for α = 0.05). */
  zAlpha?: number;
  /** Power quantile (default z for 80%). */
  zBeta?: number;
}

/** Runs needed per arm to detect p1 vs p2 with a two-sided two-proportion z-test (pooled under H0). */
export function sampleSizeTwoProportions(p1: number, p2: number, zAlpha = Z95, zBeta = Z80): number {
  const d = Math.abs(p2 - p1);
  if (d === 0) return Number.POSITIVE_INFINITY;
  const pBar = (p1 + p2) / 2;
  const a = zAlpha * Math.sqrt(2 * pBar * (1 - pBar));
  const b = zBeta * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return ((a + b) * (a + b)) / (d * d);
}

/**
 * Smallest difference in success rate that a comparison of two runs of `n` cases each would detect with 80%
 * power at α = 0.05 two-sided (two-proportion z-test; Fleiss, Statistical Methods for Rates and Proportions,
 * §4.2). The alternative moves from the baseline towards 50%, where variance is largest, so the answer is
 * conservative. Returns 1 when even the largest possible difference would not be detected.
 */
export function minimumDetectableDifference(n: number, options: PowerOptions = {}): number {
  if (!(n > 0)) return 1;
  const p1 = Math.min(1, Math.max(0, options.baseline ?? 0.5));
  const zA = options.zAlpha ?? Z95;
  const zB = options.zBeta ?? Z80;
  const up = p1 <= 0.5;
  const room = up ? 1 - p1 : p1;
  const needed = (d: number) => sampleSizeTwoProportions(p1, up ? p1 + d : p1 - d, zA, zB);
  if (needed(room) > n) return 1;
  // needed(d) decreases as d grows (within the room towards the far bound); bisect for needed(d) = n.
  let lo = 0;
  let hi = room;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (needed(mid) > n) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Human-readable power hint for reports, e.g. "with 50 cases per run, differences under 27.7 points may go unnoticed". */
export function powerHint(n: number, baseline?: number): { n: number; mdd: number; message: string } {
  const mdd = minimumDetectableDifference(n, { baseline });
  const points = (mdd * 100).toFixed(1);
  const message =
    n === 0
      ? 'no cases: a comparison cannot detect any difference'
      : mdd >= 1
        ? `with ${n} case(s) per run, no difference in success rate can be reliably detected (80% power, 5% two-sided)`
        : `with ${n} case(s) per run, a comparison can reliably detect a success-rate difference of ${points} points or more (80% power, 5% two-sided)`;
  return { n, mdd, message };
}
