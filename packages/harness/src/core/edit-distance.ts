import { itemAt } from './item-at.js';

/**
 * Levenshtein distance by the plain O(m·n) dynamic programme: the plugin registry's "did you mean" and the
 * reference the evaluators' bit-parallel kernel is tested against.
 */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(itemAt(prev, j) + 1, itemAt(cur, j - 1) + 1, itemAt(prev, j - 1) + substitution);
    }
    prev = cur;
  }
  return itemAt(prev, b.length);
}
