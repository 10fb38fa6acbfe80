/**
 * Paired statistics for comparing two runs on the cases they share: the exact McNemar (sign) test for
 * pass/fail, a seeded paired bootstrap for mean differences, and Holm's step-down correction.
 */

import { itemAt } from '../core/item-at.js';
import { erfc } from './normal.js';
import { quantileSorted } from './percentiles.js';
import { DEFAULT_SEED } from './rng.js';

/** Result of an exact two-sided sign test on discordant pairs. */
export interface McNemarResult {
  /** Pairs that passed in the baseline and failed in the candidate (or, clustered: cases that got worse). */
  worse: number;
  /** Pairs that failed in the baseline and passed in the candidate (or cases that got better). */
  better: number;
  /** Two-sided exact p-value; 1 when there are no discordant pairs. */
  p_value: number;
}

/**
 * Exact McNemar test: under H0 the discordant pairs split as Binomial(b + c, 1/2), so the two-sided p-value is
 * min(1, 2 * P[X <= min(b, c)]). Summed in log space so it stays exact for hundreds of thousands of pairs
 * (McNemar 1947; the exact form is the binomial sign test).
 */
export function mcnemarExact(worse: number, better: number): McNemarResult {
  if (!Number.isInteger(worse) || !Number.isInteger(better) || worse < 0 || better < 0) {
    throw new RangeError(`mcnemarExact needs non-negative integer counts, got ${worse} and ${better}`);
  }
  const n = worse + better;
  if (n === 0) return { worse, better, p_value: 1 };
  const k = Math.min(worse, better);
  // log P[X = i] = log C(n, i) - n log 2, built by the ratio C(n, i+1) / C(n, i) = (n - i) / (i + 1).
  let logTerm = -n * Math.LN2;
  let maxLog = logTerm;
  const logs: number[] = [logTerm];
  for (let i = 0; i < k; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    logs.push(logTerm);
    if (logTerm > maxLog) maxLog = logTerm;
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - maxLog);
  const logTail = maxLog + Math.log(sum);
  const p = Math.exp(Math.log(2) + logTail);
  return { worse, better, p_value: Math.min(1, p) };
}

export interface PairedBootstrapOptions {
  /** Number of resamples; default 2000, lowered for very large inputs (see `maxWork`). */
  resamples?: number;
  /** Seed for the resampling RNG (mulberry32); fixed by default so reports are reproducible. */
  seed?: number;
  /** Confidence level of the interval; default 0.95. */
  level?: number;
  /**
   * Upper bound on resamples x pairs. Above it the number of resamples is reduced (never below
   * `minResamples`) so a 100,000-case comparison stays fast; the count actually used is reported.
   */
  maxWork?: number;
  minResamples?: number;
}

export interface PairedBootstrapResult {
  /** Number of paired differences. */
  n: number;
  /** Observed mean difference (candidate - baseline). */
  mean: number;
  lower: number;
  upper: number;
  level: number;
  resamples: number;
  seed: number;
}

const DEFAULT_RESAMPLES = 2000;
const DEFAULT_MAX_WORK = 40_000_000;
const DEFAULT_MIN_RESAMPLES = 500;

/**
 * Percentile bootstrap interval for the mean of paired differences (Efron & Tibshirani 1993, ch. 13).
 * Resamples whole pairs, so the correlation between the two runs is kept. Deterministic for a given seed.
 */
export function pairedBootstrap(
  differences: ArrayLike<number>,
  options: PairedBootstrapOptions = {},
): PairedBootstrapResult {
  const level = options.level ?? 0.95;
  const seed = options.seed ?? DEFAULT_SEED;
  const n = differences.length;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  if (n === 0) return { n, mean: 0, lower: 0, upper: 0, level, resamples: 0, seed };
  const d = Float64Array.from(differences as ArrayLike<number>);
  const first = itemAt(d, 0);
  let total = 0;
  let allSame = true;
  for (const x of d) {
    total += x;
    if (x !== first) allSame = false;
  }
  const mean = total / n;
  const requested = options.resamples ?? DEFAULT_RESAMPLES;
  const maxWork = options.maxWork ?? DEFAULT_MAX_WORK;
  const floor = Math.min(requested, options.minResamples ?? DEFAULT_MIN_RESAMPLES);
  // Pairs that did not change contribute 0 to every resampled sum. When most pairs are unchanged, draw only the
  // picks that land on changed pairs: successive picks of a changed pair are Geometric(m/n) apart, so walking
  // the n picks by geometric jumps samples exactly the same distribution in O(m) instead of O(n) per resample.
  const changed: number[] = [];
  for (const x of d) if (x !== 0) changed.push(x);
  const m = changed.length;
  const sparse = m * 2 < n;
  // A sparse pick costs about three dense ones (two random numbers and a logarithm).
  const unitWork = sparse ? Math.max(1, 3 * m) : n;
  const resamples = Math.max(floor, Math.min(requested, Math.floor(maxWork / unitWork)));
  // Every resample has the same mean: the interval is a point.
  if (allSame) return { n, mean: first, lower: first, upper: first, level, resamples, seed };
  const means = new Float64Array(resamples);
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  if (sparse) {
    const logMiss = Math.log1p(-m / n);
    for (let b = 0; b < resamples; b++) {
      let s = 0;
      // Position of the next pick that lands on a changed pair (1-based); stop past the n-th pick.
      let pos = 0;
      for (;;) {
        pos += 1 + Math.floor(Math.log(1 - next()) / logMiss);
        if (pos > n) break;
        s += itemAt(changed, (next() * m) | 0);
      }
      means[b] = s / n;
    }
  } else {
    // Inlined mulberry32 (same generator as stats/rng.ts): this loop runs up to `maxWork` times.
    for (let b = 0; b < resamples; b++) {
      let s = 0;
      for (let i = 0; i < n; i++) {
        state = (state + 0x6d2b79f5) | 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        s += itemAt(d, ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) | 0);
      }
      means[b] = s / n;
    }
  }
  means.sort();
  const alpha = 1 - level;
  return {
    n,
    mean,
    lower: quantileSorted(means, alpha / 2),
    upper: quantileSorted(means, 1 - alpha / 2),
    level,
    resamples,
    seed,
  };
}

export interface SignFlipOptions {
  /** Monte Carlo resamples when the exact enumeration is too large; default 2000 (reduced like the bootstrap). */
  resamples?: number;
  seed?: number;
  maxWork?: number;
  minResamples?: number;
}

export interface SignFlipResult {
  n: number;
  p_value: number;
  /** True when all 2^n sign patterns were enumerated (n <= 16). */
  exact: boolean;
  /** `exact` enumeration, `monte_carlo` resampling, or the `normal` limit of the permutation distribution. */
  method: 'exact' | 'monte_carlo' | 'normal';
  resamples: number;
}

const EXACT_SIGN_FLIP_MAX_N = 16;
/** From this many changed pairs on, the permutation distribution is used through its normal limit. */
const NORMAL_SIGN_FLIP_MIN_N = 2000;

/**
 * Paired permutation (sign-flip) test of "mean difference = 0": under H0 each pair's difference is as likely to
 * have either sign, so the p-value is the share of sign patterns whose |mean| reaches the observed one
 * (Fisher 1935; Good 2005, ch. 3). Exact for n <= 16, otherwise Monte Carlo with the +1 correction
 * (Phipson & Smyth 2010), so it is never 0 and stays honest for tiny samples where a bootstrap is overconfident.
 */
export function signFlipTest(differences: ArrayLike<number>, options: SignFlipOptions = {}): SignFlipResult {
  const n = differences.length;
  const d = Float64Array.from(differences as ArrayLike<number>);
  let observed = 0;
  let nonZero = 0;
  for (const x of d) {
    observed += x;
    if (x !== 0) nonZero++;
  }
  observed = Math.abs(observed);
  if (n === 0 || nonZero === 0) return { n, p_value: 1, exact: true, method: 'exact', resamples: 0 };
  // Relative tolerance so that sums equal up to rounding count as ties (ties count against rejecting H0).
  const tol = 1e-9 * Math.max(1, observed);
  if (n <= EXACT_SIGN_FLIP_MAX_N) {
    const patterns = 2 ** n;
    let extreme = 0;
    for (let mask = 0; mask < patterns; mask++) {
      let s = 0;
      let bit = 1;
      for (const x of d) {
        s += mask & bit ? -x : x;
        bit <<= 1;
      }
      if (Math.abs(s) >= observed - tol) extreme++;
    }
    return { n, p_value: extreme / patterns, exact: true, method: 'exact', resamples: patterns };
  }
  if (nonZero >= NORMAL_SIGN_FLIP_MIN_N) {
    // Under H0 the signed sum has mean 0 and variance exactly sum(d^2); with many pairs and no single pair
    // dominating (Lindeberg), it is normal to well within Monte Carlo error, at no resampling cost.
    let sumSq = 0;
    let maxSq = 0;
    let lattice = true;
    const step = Math.abs(d.find((x) => x !== 0) ?? 0);
    for (const x of d) {
      const sq = x * x;
      sumSq += sq;
      if (sq > maxSq) maxSq = sq;
      if (x !== 0 && Math.abs(Math.abs(x) - step) > 1e-12) lattice = false;
    }
    if (maxSq <= 0.01 * sumSq) {
      // Equal-size changes (e.g. -1/+1 pass flips) move the sum in steps of 2*step: continuity-correct by one step.
      const z = Math.max(0, observed - (lattice ? step : 0)) / Math.sqrt(sumSq);
      return { n, p_value: Math.min(1, erfc(z / Math.SQRT2)), exact: false, method: 'normal', resamples: 0 };
    }
  }
  const requested = options.resamples ?? DEFAULT_RESAMPLES;
  const maxWork = options.maxWork ?? DEFAULT_MAX_WORK;
  const floor = Math.min(requested, options.minResamples ?? DEFAULT_MIN_RESAMPLES);
  const resamples = Math.max(floor, Math.min(requested, Math.floor(maxWork / n)));
  let state = (options.seed ?? DEFAULT_SEED) >>> 0;
  let extreme = 0;
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    let bits = 0;
    let i = 0;
    for (const x of d) {
      if ((i & 31) === 0) {
        // One mulberry32 draw gives 32 random signs.
        state = (state + 0x6d2b79f5) | 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        bits = t ^ (t >>> 14);
      }
      s += bits & 1 ? -x : x;
      bits >>>= 1;
      i++;
    }
    if (Math.abs(s) >= observed - tol) extreme++;
  }
  return { n, p_value: (extreme + 1) / (resamples + 1), exact: false, method: 'monte_carlo', resamples };
}

/**
 * Holm (1979) step-down adjustment: controls the family-wise error rate across all tests given.
 * Returns adjusted p-values in the input order; `null` entries (untested) stay `null` and are not counted.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const tested = pValues
    .map((p, index) => ({ p, index }))
    .filter((x): x is { p: number; index: number } => x.p !== null && Number.isFinite(x.p));
  tested.sort((a, b) => a.p - b.p);
  const m = tested.length;
  const out: (number | null)[] = pValues.map(() => null);
  let running = 0;
  tested.forEach(({ p, index }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[index] = running;
  });
  return out;
}
