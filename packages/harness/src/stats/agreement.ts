import { itemAt } from '../core/item-at.js';

/** Inter-rater agreement for judge panels and human labels. */

export type Label = string | number | boolean;

/**
 * Cohen's kappa for two raters over the same items (Cohen 1960): observed agreement corrected for the
 * agreement expected from each rater's label frequencies. 1 = perfect, 0 = chance, < 0 = worse than chance.
 * When both raters use a single identical label throughout, agreement is perfect and kappa is 1 by convention.
 */
export function cohenKappa(a: readonly Label[], b: readonly Label[]): number {
  if (a.length !== b.length) throw new RangeError('both raters must label the same items');
  const n = a.length;
  if (n === 0) return Number.NaN;
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    const x = String(a[i]);
    const y = String(b[i]);
    if (x === y) agree++;
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const [label, count] of ca) pe += (count / n) * ((cb.get(label) ?? 0) / n);
  if (pe === 1) return po === 1 ? 1 : 0;
  return (po - pe) / (1 - pe);
}

export type AlphaLevel = 'nominal' | 'interval';

/**
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability") for any number of
 * raters, with missing ratings allowed (null/undefined). `ratings[r][u]` is rater r's value for unit u.
 * Units with fewer than two ratings are ignored. alpha = 1 - D_observed / D_expected, computed from the
 * coincidence matrix. Returns NaN when fewer than two pairable values exist, and 1 when all values agree.
 */
export function krippendorffAlpha(
  ratings: readonly (readonly (Label | null | undefined)[])[],
  level: AlphaLevel = 'nominal',
): number {
  const units = Math.max(0, ...ratings.map((r) => r.length));
  const values: Label[] = [];
  const index = new Map<string, number>();
  const key = (v: Label) => (level === 'interval' ? String(Number(v)) : String(v));
  const perUnit: number[][] = [];
  for (let u = 0; u < units; u++) {
    const vals: number[] = [];
    for (const rater of ratings) {
      const v = rater[u];
      if (v === null || v === undefined) continue;
      if (level === 'interval' && !Number.isFinite(Number(v)))
        throw new TypeError(`interval alpha needs numbers, got ${String(v)}`);
      const k = key(v);
      let i = index.get(k);
      if (i === undefined) {
        i = values.length;
        index.set(k, i);
        values.push(level === 'interval' ? Number(v) : v);
      }
      vals.push(i);
    }
    if (vals.length >= 2) perUnit.push(vals);
  }
  const m = values.length;
  // Coincidence matrix o[c][k]: each ordered pair of values within a unit weighted by 1 / (m_u - 1).
  const o: number[][] = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  for (const vals of perUnit) {
    const w = 1 / (vals.length - 1);
    for (const [i, vi] of vals.entries()) {
      const row = itemAt(o, vi);
      for (const [j, vj] of vals.entries()) if (i !== j) row[vj] = itemAt(row, vj) + w;
    }
  }
  const nc = o.map((row) => row.reduce((s, x) => s + x, 0));
  const total = nc.reduce((s, x) => s + x, 0);
  if (total < 2) return Number.NaN;
  const delta = (c: number, k: number): number => {
    if (level === 'nominal') return c === k ? 0 : 1;
    const d = (values[c] as number) - (values[k] as number);
    return d * d;
  };
  let dObs = 0;
  let dExp = 0;
  for (const [c, row] of o.entries()) {
    for (const [k, count] of row.entries()) {
      const d = delta(c, k);
      if (d === 0) continue;
      dObs += count * d;
      dExp += itemAt(nc, c) * itemAt(nc, k) * d;
    }
  }
  if (dExp === 0) return 1;
  return 1 - ((total - 1) * dObs) / dExp;
}

/** Share of items on which all raters gave the same label (a plain, chance-uncorrected figure). */
export function percentAgreement(ratings: readonly (readonly Label[])[]): number {
  const units = Math.min(...ratings.map((r) => r.length));
  if (!Number.isFinite(units) || units === 0) return Number.NaN;
  // At least one rater: the minimum length over no raters is Infinity, returned above.
  const reference = itemAt(ratings, 0);
  let same = 0;
  for (let u = 0; u < units; u++) {
    const first = String(itemAt(reference, u));
    if (ratings.every((r) => String(r[u]) === first)) same++;
  }
  return same / units;
}
