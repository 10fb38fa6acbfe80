import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { itemAt } from '../core/item-at.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { isMissing, resolveExpected } from './support/expected.js';
import { memoTokens, references, words } from './support/text.js';

const referenceWords = memoTokens(words);

const Options = z.strictObject({
  /** Reference text (or list: the best score counts); defaults to the case's `expected`. */
  value: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  /** Weight of recall over precision in the F-measure (1 = F1, the usual choice). */
  beta: z.number().positive().default(1),
});

export const ROUGE_DEFAULT_THRESHOLD = 0.5;

/** Length of the longest common subsequence of two token lists (O(n·m) time, O(m) memory). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (const tokenA of a) {
    for (const [j, tokenB] of b.entries()) {
      // Row cells are 1-based (cell 0 is the empty prefix), so token j fills cell j + 1.
      cur[j + 1] = tokenA === tokenB ? itemAt(prev, j) + 1 : Math.max(itemAt(prev, j + 1), itemAt(cur, j));
    }
    [prev, cur] = [cur, prev];
  }
  return itemAt(prev, b.length);
}

/** ROUGE-L F-measure (Lin 2004) over lower-case word tokens. */
export function rougeL(
  candidate: string,
  reference: string,
  beta = 1,
): { f: number; precision: number; recall: number } {
  const c = words(candidate);
  const r = referenceWords(reference);
  if (c.length === 0 || r.length === 0) {
    const same = c.length === r.length ? 1 : 0;
    return { f: same, precision: same, recall: same };
  }
  const lcs = lcsLength(c, r);
  if (lcs === 0) return { f: 0, precision: 0, recall: 0 };
  const precision = lcs / c.length;
  const recall = lcs / r.length;
  const b2 = beta * beta;
  return { f: ((1 + b2) * precision * recall) / (recall + b2 * precision), precision, recall };
}

/**
 * ROUGE-L: longest-common-subsequence F-measure between the output and the reference (word level).
 * Passes at 0.5 unless `threshold` says otherwise.
 * @example { name: rouge_l, options: { threshold: 0.6 } }
 */
export const rougeLEvaluator = defineEvaluator({
  name: 'rouge_l',
  description: 'ROUGE-L (longest common subsequence F-measure) with the reference; passes at threshold (default 0.5).',
  options: Options,
  create(opts) {
    return {
      name: 'rouge_l',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('rouge_l', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw))
          return result({
            evaluator: 'rouge_l',
            score: 0,
            passed: false,
            explanation: 'no reference text (option `value` or case `expected`)',
          });
        const text = outputText(output);
        let best = { f: -1, precision: 0, recall: 0 };
        for (const ref of references(raw)) {
          const s = rougeL(text, ref, opts.beta);
          if (s.f > best.f) best = s;
        }
        return result({
          evaluator: 'rouge_l',
          score: best.f,
          passed: best.f >= ROUGE_DEFAULT_THRESHOLD,
          explanation: `ROUGE-L ${best.f.toFixed(3)} (precision ${best.precision.toFixed(2)}, recall ${best.recall.toFixed(2)}; default pass mark ${ROUGE_DEFAULT_THRESHOLD})`,
          details: best,
        });
      },
    };
  },
});
