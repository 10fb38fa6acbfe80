import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, expectedText, isMissing, resolveExpected } from './support/expected.js';

const Options = z.strictObject({
  /** Compare against this instead of the case's `expected`. */
  value: z.unknown().optional(),
  ignore_case: z.boolean().default(false),
  strip_whitespace: z.boolean().default(true),
});

/**
 * Passes when the output text equals the expected value.
 * @example { name: exact_match, options: { ignore_case: true } }
 */
export const exactMatch = defineEvaluator({
  name: 'exact_match',
  description: 'Output text equals the expected value (options: ignore_case, strip_whitespace).',
  options: Options,
  create(opts) {
    const normalize = (s: string): string => {
      let t = opts.strip_whitespace ? s.trim() : s;
      if (opts.ignore_case) t = t.toLowerCase();
      return t;
    };
    return {
      name: 'exact_match',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('exact_match', output);
        const expectedRaw = resolveExpected(opts.value, testCase);
        if (isMissing(expectedRaw)) {
          return result({
            evaluator: 'exact_match',
            score: 1,
            passed: true,
            explanation: 'no expected value given (case `expected` or option `value`); passed by default',
            details: { skipped: true },
          });
        }
        const expected = expectedText(expectedRaw);
        const actual = outputText(output);
        const a = normalize(actual);
        const e = normalize(expected);
        const passed = a === e;
        return result({
          evaluator: 'exact_match',
          score: passed ? 1 : 0,
          passed,
          explanation: passed ? 'output matches the expected value exactly' : `expected '${clip(e)}', got '${clip(a)}'`,
          details: { expected, actual, ignore_case: opts.ignore_case, strip_whitespace: opts.strip_whitespace },
        });
      },
    };
  },
});
