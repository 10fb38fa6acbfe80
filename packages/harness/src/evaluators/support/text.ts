import { itemAt } from '../../core/item-at.js';

/** Text utilities for the similarity evaluators. */

/**
 * Levenshtein edit distance with Myers' bit-parallel algorithm in Hyyrö's blocked form (Myers 1999,
 * "A fast bit-vector algorithm for approximate string matching"; Hyyrö 2003): the shorter string is the
 * pattern, split into 32-bit blocks, and each character of the longer string updates every block with a
 * few word operations, so the cost is O(⌈m/32⌉·n) instead of O(m·n). Works on UTF-16 code units.
 */
let asciiTable = new Int32Array(128 * 8);

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  const m = b.length;
  if (m === 0) return a.length;
  const blocks = (m + 31) >>> 5;
  // Peq: for each character of the pattern, a bit mask per block of the positions where it occurs.
  // ASCII goes in a flat table (no hashing on the hot path); other code units in a map.
  if (asciiTable.length < 128 * blocks) asciiTable = new Int32Array(128 * blocks);
  const ascii = asciiTable;
  const peq = new Map<number, Int32Array>();
  for (let i = 0; i < m; i++) {
    const c = b.charCodeAt(i);
    if (c < 128) {
      const slot = c * blocks + (i >>> 5);
      ascii[slot] = itemAt(ascii, slot) | (1 << (i & 31));
      continue;
    }
    let masks = peq.get(c);
    if (!masks) {
      masks = new Int32Array(blocks);
      peq.set(c, masks);
    }
    masks[i >>> 5] = itemAt(masks, i >>> 5) | (1 << (i & 31));
  }
  const none = new Int32Array(blocks);
  const pv = new Int32Array(blocks).fill(-1);
  const mv = new Int32Array(blocks);
  const lastBit = 1 << ((m - 1) & 31);
  let score = m;
  for (let j = 0; j < a.length; j++) {
    const c = a.charCodeAt(j);
    const masks = c < 128 ? undefined : (peq.get(c) ?? none);
    const base = c * blocks;
    // Horizontal delta entering block 0 is +1: row 0 of the DP table is 0, 1, 2, ...
    let hin = 1;
    for (let k = 0; k < blocks; k++) {
      // k < blocks, the length of every mask array: each read is in range. `?? 0` (no bits set) only satisfies
      // the checker; a bounds-checking call per word would cost a third of the kernel's time.
      let eq = (masks === undefined ? ascii[base + k] : masks[k]) ?? 0;
      const p = pv[k] ?? 0;
      const n = mv[k] ?? 0;
      const xv = eq | n;
      if (hin < 0) eq |= 1;
      const xh = (((eq & p) + p) ^ p) | eq;
      let ph = n | ~(xh | p);
      let mh = p & xh;
      const top = k === blocks - 1 ? lastBit : 1 << 31;
      const hout = ph & top ? 1 : mh & top ? -1 : 0;
      ph <<= 1;
      mh <<= 1;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      pv[k] = mh | ~(xv | ph);
      mv[k] = ph & xv;
      hin = hout;
    }
    score += hin;
  }
  // Leave the shared table zeroed for the next call (only the pattern's own entries were set).
  for (let i = 0; i < m; i++) {
    const c = b.charCodeAt(i);
    if (c < 128) ascii[c * blocks + (i >>> 5)] = 0;
  }
  return score;
}

/** Plain O(m·n) dynamic programme; the reference the bit-parallel version is tested against. */
export { levenshtein as editDistanceDp } from '../../core/edit-distance.js';

/** 1 - distance / longer length: 1 for equal strings, 0 for nothing in common. Two empty strings are equal. */
export function levenshteinSimilarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  return 1 - editDistance(a, b) / longest;
}

/** Lower-case word tokens (letters and digits, Unicode-aware). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/** SQuAD-style answer normalisation: lower case, drop punctuation and English articles, collapse spaces. */
export function squadTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .split(/\s+/)
    .filter((t) => t !== '' && t !== 'a' && t !== 'an' && t !== 'the');
}

/** Multiset of tokens. */
export function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** References from an expected value: a string, or a list of acceptable strings. */
export function references(expected: unknown): string[] {
  if (Array.isArray(expected)) return expected.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  if (expected === undefined || expected === null) return [];
  return [typeof expected === 'string' ? expected : JSON.stringify(expected)];
}

/** Memoise a tokenizer on its last few inputs: the reference text is the same for every run of a case. */
export function memoTokens<T>(fn: (text: string) => T, size = 64): (text: string) => T {
  const cache = new Map<string, T>();
  return (text: string) => {
    let v = cache.get(text);
    if (v === undefined) {
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      v = fn(text);
      cache.set(text, v);
    }
    return v;
  };
}
