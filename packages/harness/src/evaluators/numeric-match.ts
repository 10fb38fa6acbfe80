import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { itemAt } from '../core/item-at.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, isMissing, resolveExpected } from './support/expected.js';

const Options = z
  .strictObject({
    /** Expected number; defaults to the case's `expected` (a number or numeric text). */
    value: z.number().optional(),
    /** Absolute tolerance: |actual - expected| <= abs_tol passes. */
    abs_tol: z.number().min(0).default(0),
    /** Relative tolerance: |actual - expected| <= rel_tol * |expected| passes. */
    rel_tol: z.number().min(0).default(1e-9),
    /** Which number in the text is the answer: the last (default), the first, or the only one. */
    extract: z.enum(['last', 'first', 'only']).default('last'),
    /** Regular expression locating the answer; numbers are read from its first capture group (or the whole match). */
    pattern: z.string().optional(),
  })
  .superRefine((o, ctx) => {
    if (o.pattern === undefined) return;
    try {
      new RegExp(o.pattern, 'u');
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `invalid regular expression: ${errorMessage(err)}`,
      });
    }
  });

// Signed decimals with optional thousands separators, exponent and a trailing percent sign. Every
// alternative needs a digit, so the scan never produces empty matches.
const NUMBER = /(?<![\p{L}\p{N}.])[-+−]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?%?/gu;

/** Every number written in the text, in order ("1,234.5" -> 1234.5, "−3" -> -3, "45%" -> 45). */
export function numbersIn(text: string): number[] {
  const found: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const raw = m[0].replace(/[,%]/g, '').replace('−', '-');
    const n = Number(raw);
    if (Number.isFinite(n)) found.push(n);
  }
  return found;
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const all = numbersIn(v);
    return all.length === 1 ? all[0] : undefined;
  }
  return undefined;
}

/**
 * Extracts the number from the output ("The total is $1,234.50." -> 1234.5) and compares it with the
 * expected number within an absolute or relative tolerance.
 * @example { name: numeric_match, options: { value: 3.14159, abs_tol: 0.001 } }
 */
export const numericMatch = defineEvaluator({
  name: 'numeric_match',
  description:
    'Number extracted from the output equals the expected number within abs_tol / rel_tol (options: value, extract, pattern).',
  options: Options,
  create(opts) {
    return {
      name: 'numeric_match',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('numeric_match', output);
        const raw = resolveExpected(opts.value, testCase);
        const expected = toNumber(raw);
        if (isMissing(raw) || expected === undefined) {
          return result({
            evaluator: 'numeric_match',
            score: 0,
            passed: false,
            explanation: isMissing(raw)
              ? 'no expected number (option `value` or case `expected`)'
              : `expected value ${clip(String(raw), 60)} is not a single number`,
          });
        }
        let text = typeof output.output === 'string' ? output.output : outputText(output);
        if (opts.pattern !== undefined) {
          const m = new RegExp(opts.pattern, 'u').exec(text);
          if (!m) {
            return result({
              evaluator: 'numeric_match',
              score: 0,
              passed: false,
              explanation: `pattern /${opts.pattern}/ not found in the output`,
              details: { expected },
            });
          }
          text = m[1] ?? m[0];
        }
        const numbers = numbersIn(text);
        if (numbers.length === 0 || (opts.extract === 'only' && numbers.length > 1)) {
          return result({
            evaluator: 'numeric_match',
            score: 0,
            passed: false,
            explanation:
              numbers.length === 0
                ? 'no number found in the output'
                : `the output contains ${numbers.length} numbers; exactly one was required`,
            details: { numbers, expected },
          });
        }
        // Non-empty: no number was answered above.
        const actual = itemAt(numbers, opts.extract === 'first' ? 0 : numbers.length - 1);
        const diff = Math.abs(actual - expected);
        const tolerance = Math.max(opts.abs_tol, opts.rel_tol * Math.abs(expected));
        const passed = diff <= tolerance;
        return result({
          evaluator: 'numeric_match',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `${actual} matches ${expected}`
            : `${actual} differs from ${expected} by ${diff} (tolerance ${tolerance})`,
          details: { actual, expected, difference: diff, tolerance, numbers },
        });
      },
    };
  },
});
