import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, expectedText, isMissing, resolveExpected } from './support/expected.js';

const Needle = z.union([z.string(), z.array(z.string()).min(1)]);

const Options = z
  .strictObject({
    /** Text (or list of texts) to look for; defaults to the case's `expected`. */
    substring: Needle.optional(),
    /** Alias of `substring`. */
    value: Needle.optional(),
    /** With a list: `all` must appear (default) or `any` one of them. */
    mode: z.enum(['all', 'any']).default('all'),
    case_sensitive: z.boolean().default(true),
    /** Treat each needle as a regular expression searched anywhere in the output. */
    is_regex: z.boolean().default(false),
  })
  .superRefine((o, ctx) => {
    if (!o.is_regex) return;
    const needles = [o.substring ?? [], o.value ?? []].flat();
    for (const n of needles) {
      try {
        new RegExp(n);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          path: ['substring'],
          message: `invalid regular expression: ${errorMessage(err)}`,
        });
      }
    }
  });

/**
 * Passes when the output contains the given text (or all / any of a list).
 * @example { name: contains, options: { substring: [refund, order], mode: any, case_sensitive: false } }
 */
export const contains = defineEvaluator({
  name: 'contains',
  description:
    'Output contains a substring, or all/any of a list (options: substring, mode, case_sensitive, is_regex).',
  options: Options,
  create(opts) {
    return {
      name: 'contains',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('contains', output);
        const raw = opts.substring ?? opts.value ?? resolveExpected(undefined, testCase);
        if (isMissing(raw)) {
          return result({
            evaluator: 'contains',
            score: 1,
            passed: true,
            explanation: 'no text to look for (option `substring` or case `expected`); passed by default',
            details: { skipped: true },
          });
        }
        const needles = Array.isArray(raw) ? raw.map(expectedText) : [expectedText(raw)];
        const text = outputText(output);
        const haystack = opts.case_sensitive ? text : text.toLowerCase();
        const found: string[] = [];
        const missing: string[] = [];
        for (const needle of needles) {
          let hit: boolean;
          if (opts.is_regex) hit = new RegExp(needle, opts.case_sensitive ? 'u' : 'iu').test(text);
          else hit = haystack.includes(opts.case_sensitive ? needle : needle.toLowerCase());
          (hit ? found : missing).push(needle);
        }
        const passed = opts.mode === 'all' ? missing.length === 0 : found.length > 0;
        const score =
          needles.length === 1
            ? passed
              ? 1
              : 0
            : opts.mode === 'all'
              ? found.length / needles.length
              : passed
                ? 1
                : 0;
        const what = opts.is_regex ? 'pattern' : 'text';
        let explanation: string;
        const [onlyNeedle] = needles;
        if (needles.length === 1 && onlyNeedle !== undefined) {
          explanation = passed
            ? `output contains ${what} '${clip(onlyNeedle)}'`
            : `output does not contain ${what} '${clip(onlyNeedle)}'`;
        } else if (opts.mode === 'all') {
          explanation = passed
            ? `output contains all ${needles.length} ${what}s`
            : `output is missing ${missing.length} of ${needles.length}: ${missing.map((m) => `'${clip(m, 60)}'`).join(', ')}`;
        } else {
          explanation = passed
            ? `output contains ${found.map((m) => `'${clip(m, 60)}'`).join(', ')}`
            : `output contains none of ${needles.map((m) => `'${clip(m, 60)}'`).join(', ')}`;
        }
        return result({
          evaluator: 'contains',
          score,
          passed,
          explanation,
          details: { found, missing, mode: opts.mode, case_sensitive: opts.case_sensitive, is_regex: opts.is_regex },
        });
      },
    };
  },
});
