import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
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

function ngrams(tokens: readonly string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const g = tokens.slice(i, i + n).join('\u0001');
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
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
  const rs = refs.map(words);
  if (c.length === 0 || rs.every((r) => r.length === 0))
    return { bleu: c.length === 0 && rs.some((r) => r.length === 0) ? 1 : 0, precisions: [], brevity_penalty: 0 };
  const precisions: number[] = [];
  let logSum = 0;
  for (let n = 1; n <= maxN; n++) {
    const cand = ngrams(c, n);
    const maxRef = new Map<string, number>();
    for (const r of rs) for (const [g, k] of ngrams(r, n)) maxRef.set(g, Math.max(maxRef.get(g) ?? 0, k));
    let clipped = 0;
    let total = 0;
    for (const [g, k] of cand) {
      clipped += Math.min(k, maxRef.get(g) ?? 0);
      total += k;
    }
    const p = n === 1 ? (total === 0 ? 0 : clipped / total) : (clipped + 1) / (total + 1);
    precisions.push(p);
    if (p === 0) return { bleu: 0, precisions, brevity_penalty: 0 };
    logSum += Math.log(p) / maxN;
  }
  let refLen = rs[0].length;
  for (const r of rs) {
    const d = Math.abs(r.length - c.length);
    const best = Math.abs(refLen - c.length);
    if (d < best || (d === best && r.length < refLen)) refLen = r.length;
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
