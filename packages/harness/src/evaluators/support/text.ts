/** Text utilities for the similarity evaluators. */

let rowA = new Uint32Array(256);
let rowB = new Uint32Array(256);

/** Levenshtein edit distance (two-row dynamic programme over UTF-16 code units, buffers reused). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  const m = b.length;
  if (m === 0) return a.length;
  if (rowA.length <= m) {
    rowA = new Uint32Array(m + 1);
    rowB = new Uint32Array(m + 1);
  }
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1] + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      cur[j] = Math.min(sub, del, ins);
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}

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
