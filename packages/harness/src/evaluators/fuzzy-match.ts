import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { isMissing, resolveExpected } from './support/expected.js';
import { levenshteinSimilarity, memoTokens, references } from './support/text.js';

const Options = z.strictObject({
  /** Reference text (or list: the best match counts); defaults to the case's `expected`. */
  value: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  ignore_case: z.boolean().default(true),
  /** Trim and collapse runs of whitespace before comparing. */
  normalize_whitespace: z.boolean().default(true),
});

/** Default pass mark when the suite gives no `threshold`. */
export const FUZZY_DEFAULT_THRESHOLD = 0.8;

/**
 * Normalised Levenshtein similarity, 1 - edits / longer length, between the output and the reference;
 * passes at 0.8 unless `threshold` says otherwise.
 * @example { name: fuzzy_match, options: { value: 'Paris, France', threshold: 0.9 } }
 */
export const fuzzyMatch = defineEvaluator({
  name: 'fuzzy_match',
  description: 'Normalized Levenshtein similarity to the expected text; passes at threshold (default 0.8).',
  options: Options,
  create(opts) {
    const norm = (s: string) => {
      let t = opts.normalize_whitespace ? s.trim().replace(/\s{2,}|[\t\n\r\f\v]/g, ' ') : s;
      if (opts.ignore_case) t = t.toLowerCase();
      return t;
    };
    const normRef = memoTokens(norm);
    return {
      name: 'fuzzy_match',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('fuzzy_match', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw)) {
          return result({
            evaluator: 'fuzzy_match',
            score: 0,
            passed: false,
            explanation: 'no reference text (option `value` or case `expected`)',
          });
        }
        const actual = norm(outputText(output));
        let best = -1;
        let bestRef = '';
        for (const ref of references(raw)) {
          const s = levenshteinSimilarity(actual, normRef(ref));
          if (s > best) {
            best = s;
            bestRef = ref;
          }
        }
        const passed = best >= FUZZY_DEFAULT_THRESHOLD;
        return result({
          evaluator: 'fuzzy_match',
          score: best,
          passed,
          explanation: `similarity ${best.toFixed(3)} to the reference (default pass mark ${FUZZY_DEFAULT_THRESHOLD})`,
          details: { similarity: best, reference: bestRef },
        });
      },
    };
  },
});
