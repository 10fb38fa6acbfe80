import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { isMissing, resolveExpected } from './support/expected.js';
import { counts, memoTokens, references, squadTokens } from './support/text.js';

const referenceTokens = memoTokens((t) => counts(squadTokens(t)));

const Options = z.strictObject({
  /** Reference answer (or list: the best F1 counts); defaults to the case's `expected`. */
  value: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
});

export const F1_DEFAULT_THRESHOLD = 0.5;

/** Token-overlap F1 between a prediction and a reference, after SQuAD normalisation. */
export function tokenF1(prediction: string, reference: string): { f1: number; precision: number; recall: number } {
  const p = squadTokens(prediction);
  const rc = referenceTokens(reference);
  let rLength = 0;
  for (const n of rc.values()) rLength += n;
  if (p.length === 0 || rLength === 0) {
    const same = p.length === rLength ? 1 : 0;
    return { f1: same, precision: same, recall: same };
  }
  let common = 0;
  for (const [t, n] of counts(p)) common += Math.min(n, rc.get(t) ?? 0);
  if (common === 0) return { f1: 0, precision: 0, recall: 0 };
  const precision = common / p.length;
  const recall = common / rLength;
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall };
}

/**
 * Token-overlap F1 (SQuAD: lower case, no punctuation or articles) between the output and the reference.
 * Score is the F1; passes at 0.5 unless `threshold` says otherwise.
 * @example { name: f1, options: { threshold: 0.7 } }
 */
export const f1 = defineEvaluator({
  name: 'f1',
  description: 'Token-overlap F1 with the expected answer (SQuAD normalization); passes at threshold (default 0.5).',
  options: Options,
  create(opts) {
    return {
      name: 'f1',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('f1', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw))
          return result({
            evaluator: 'f1',
            score: 0,
            passed: false,
            explanation: 'no reference answer (option `value` or case `expected`)',
          });
        const text = outputText(output);
        let best = { f1: -1, precision: 0, recall: 0 };
        for (const ref of references(raw)) {
          const s = tokenF1(text, ref);
          if (s.f1 > best.f1) best = s;
        }
        return result({
          evaluator: 'f1',
          score: best.f1,
          passed: best.f1 >= F1_DEFAULT_THRESHOLD,
          explanation: `token F1 ${best.f1.toFixed(3)} (precision ${best.precision.toFixed(2)}, recall ${best.recall.toFixed(2)}; default pass mark ${F1_DEFAULT_THRESHOLD})`,
          details: best,
        });
      },
    };
  },
});
