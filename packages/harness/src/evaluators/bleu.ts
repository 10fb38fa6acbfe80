import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { itemAt } from '../core/item-at.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { isMissing, resolveExpected } from './support/expected.js';
import { references, words } from './support/text.js';

const Options = z.strictObject({
  /** Reference text(s); defaults to the case's `expected`. Several references are used together, as in BLEU. */
  value: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  /** Highest n-gram order (uniform weights). */
  max_n: z.number().int().min(1).max(8).default(4),
});

export const BLEU_DEFAULT_THRESHOLD = 0.5;

/** Reference side of BLEU, computed once per reference set (the same for every run of a case). */
interface ReferenceStats {
  vocab: Map<string, number>;
  /** For each order n (index n - 1): the highest count of each n-gram in any one reference. */
  maxRef: Map<number | string, number>[];
  lengths: number[];
  numeric: boolean;
}

const refCache = new Map<string, ReferenceStats>();

/** n-gram key: up to four token ids below 2^13 pack exactly into one double; otherwise a string. */
function key(ids: ArrayLike<number>, i: number, n: number, numeric: boolean): number | string {
  if (numeric) {
    let k = 0;
    for (let j = 0; j < n; j++) k = k * 8192 + itemAt(ids, i + j);
    return k;
  }
  let s = String(ids[i]);
  for (let j = 1; j < n; j++) s += `,${ids[i + j]}`;
  return s;
}

function referenceStats(refs: readonly string[], maxN: number): ReferenceStats {
  const cacheKey = `${maxN}\u0002${refs.join('\u0002')}`;
  const hit = refCache.get(cacheKey);
  if (hit) return hit;
  const vocab = new Map<string, number>();
  const tokenized = refs.map((r) =>
    words(r).map((t) => {
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size + 1;
        vocab.set(t, id);
      }
      return id;
    }),
  );
  const numeric = maxN <= 4 && vocab.size < 8191;
  const maxRef: Map<number | string, number>[] = [];
  for (let n = 1; n <= maxN; n++) {
    const m = new Map<number | string, number>();
    for (const ids of tokenized) {
      const local = new Map<number | string, number>();
      for (let i = 0; i + n <= ids.length; i++) {
        const k = key(ids, i, n, numeric);
        local.set(k, (local.get(k) ?? 0) + 1);
      }
      for (const [k, c] of local) if (c > (m.get(k) ?? 0)) m.set(k, c);
    }
    maxRef.push(m);
  }
  const stats = { vocab, maxRef, lengths: tokenized.map((t) => t.length), numeric };
  if (refCache.size >= 64) refCache.delete(refCache.keys().next().value as string);
  refCache.set(cacheKey, stats);
  return stats;
}

/**
 * Sentence-level BLEU (Papineni et al. 2002): geometric mean of clipped n-gram precisions times the
 * brevity penalty, with add-one smoothing for orders above 1 (Lin & Och 2004) so short outputs do not
 * collapse to 0. Reference length is the one closest to the candidate's.
 */
export function sentenceBleu(
  candidate: string,
  refs: readonly string[],
  maxN = 4,
): { bleu: number; precisions: number[]; brevity_penalty: number } {
  const c = words(candidate);
  const ref = referenceStats(refs, maxN);
  if (c.length === 0 || ref.lengths.every((l) => l === 0)) {
    return { bleu: c.length === 0 && ref.lengths.some((l) => l === 0) ? 1 : 0, precisions: [], brevity_penalty: 0 };
  }
  // Candidate tokens absent from every reference get id 0: n-grams containing them can never be clipped in.
  const ids = c.map((t) => ref.vocab.get(t) ?? 0);
  const precisions: number[] = [];
  let logSum = 0;
  for (let n = 1; n <= maxN; n++) {
    const total = Math.max(0, c.length - n + 1);
    const counts = new Map<number | string, number>();
    outer: for (let i = 0; i + n <= ids.length; i++) {
      for (let j = 0; j < n; j++) if (ids[i + j] === 0) continue outer;
      const k = key(ids, i, n, ref.numeric);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const maxRef = itemAt(ref.maxRef, n - 1);
    let clipped = 0;
    for (const [g, k] of counts) clipped += Math.min(k, maxRef.get(g) ?? 0);
    const p = n === 1 ? (total === 0 ? 0 : clipped / total) : (clipped + 1) / (total + 1);
    precisions.push(p);
    if (p === 0) return { bleu: 0, precisions, brevity_penalty: 0 };
    logSum += Math.log(p) / maxN;
  }
  // At least one reference: no reference lengths returned above (every() of nothing is true).
  let refLen = itemAt(ref.lengths, 0);
  for (const l of ref.lengths) {
    const d = Math.abs(l - c.length);
    const best = Math.abs(refLen - c.length);
    if (d < best || (d === best && l < refLen)) refLen = l;
  }
  const bp = c.length > refLen ? 1 : Math.exp(1 - refLen / c.length);
  return { bleu: bp * Math.exp(logSum), precisions, brevity_penalty: bp };
}

/**
 * Sentence BLEU between the output and the reference(s), word level, smoothed.
 * Passes at 0.5 unless `threshold` says otherwise.
 * @example { name: bleu, options: { max_n: 2, threshold: 0.3 } }
 */
export const bleu = defineEvaluator({
  name: 'bleu',
  description:
    'Smoothed sentence BLEU (n-grams up to max_n, default 4) against the reference(s); passes at threshold (default 0.5).',
  options: Options,
  create(opts) {
    return {
      name: 'bleu',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('bleu', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw))
          return result({
            evaluator: 'bleu',
            score: 0,
            passed: false,
            explanation: 'no reference text (option `value` or case `expected`)',
          });
        const s = sentenceBleu(outputText(output), references(raw), opts.max_n);
        return result({
          evaluator: 'bleu',
          score: s.bleu,
          passed: s.bleu >= BLEU_DEFAULT_THRESHOLD,
          explanation: `BLEU ${s.bleu.toFixed(3)} (brevity penalty ${s.brevity_penalty.toFixed(2)}; default pass mark ${BLEU_DEFAULT_THRESHOLD})`,
          details: s,
        });
      },
    };
  },
});
