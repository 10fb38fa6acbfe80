import { erfc } from '../stats/normal.js';
import { Z80 } from '../stats/power.js';

/** Standard normal quantile Φ⁻¹(p), by bisection on Φ(x) = erfc(-x/√2)/2 (accurate to ~1e-12; called rarely). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (erfc(-mid / Math.SQRT2) / 2 < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface PowerInput {
  /** Paired units compared. */
  n: number;
  /** How much worse the candidate is, in the measure's units (> 0). */
  drop: number;
  /** Per-unit changes that got worse / better (pass/fail measures). */
  gotWorse: number;
  gotBetter: number;
  /** Standard deviation of the per-unit changes (continuous measures). */
  sdDelta: number | null;
  /** True for 0/1 measures (exact McNemar). */
  binary: boolean;
  /** Per-measure significance level (the gate's alpha split over the gated measures). */
  alpha: number;
}

/**
 * Paired units a comparison would need to call a drop of this size significant with 80% power, assuming the
 * same rate of changed cases (pass/fail: Connor 1987's sample size for McNemar's test, and never fewer than
 * the exact test's minimum of ⌈log2(2/α)⌉ discordant pairs; scores: the paired z approximation with the
 * observed spread of changes). An estimate to size a suite, not a guarantee.
 */
export function pairedUnitsNeeded(input: PowerInput): number {
  const { n, drop, alpha } = input;
  if (!(drop > 0) || n <= 0) return Number.POSITIVE_INFINITY;
  const zA = normalQuantile(1 - alpha / 2);
  const minDiscordant = Math.ceil(Math.log2(2 / alpha));
  if (input.binary) {
    const discordant = Math.max(1, input.gotWorse + input.gotBetter) / n;
    const d = Math.min(drop, discordant);
    const spread = Math.max(0, discordant - d * d);
    const connor = (zA * Math.sqrt(discordant) + Z80 * Math.sqrt(spread)) ** 2 / (d * d);
    return Math.ceil(Math.max(connor, minDiscordant / discordant));
  }
  const sd = input.sdDelta && input.sdDelta > 0 ? input.sdDelta : drop;
  return Math.max(minDiscordant, Math.ceil((((zA + Z80) * sd) / drop) ** 2));
}
