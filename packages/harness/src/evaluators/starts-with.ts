import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, isMissing, resolveExpected } from './support/expected.js';
import { references } from './support/text.js';

const Options = z.strictObject({
  /** Prefix (or list of accepted prefixes); defaults to the case's `expected`. */
  value: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  case_sensitive: z.boolean().default(true),
  /** Ignore leading whitespace in the output. */
  strip_whitespace: z.boolean().default(true),
});

/**
 * Passes when the output starts with the given prefix (any of a list).
 * @example { name: starts_with, options: { value: ['Yes', 'Sure'] } }
 */
export const startsWith = defineEvaluator({
  name: 'starts_with',
  description: 'Output starts with a prefix, or any of a list (options: value, case_sensitive, strip_whitespace).',
  options: Options,
  create(opts) {
    return {
      name: 'starts_with',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('starts_with', output);
        const raw = resolveExpected(opts.value, testCase);
        if (isMissing(raw)) {
          return result({
            evaluator: 'starts_with',
            score: 0,
            passed: false,
            explanation: 'no prefix given (option `value` or case `expected`)',
          });
        }
        const prefixes = references(raw);
        let text = outputText(output);
        if (opts.strip_whitespace) text = text.trimStart();
        const fold = (s: string) => (opts.case_sensitive ? s : s.toLowerCase());
        const hit = prefixes.find((p) => fold(text).startsWith(fold(p)));
        return result({
          evaluator: 'starts_with',
          score: hit !== undefined ? 1 : 0,
          passed: hit !== undefined,
          explanation:
            hit !== undefined
              ? `output starts with '${clip(hit, 80)}'`
              : `output starts with '${clip(text, 40)}', expected ${prefixes.map((p) => `'${clip(p, 40)}'`).join(' or ')}`,
          details: { prefixes, matched: hit ?? null },
        });
      },
    };
  },
});
