import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, expectedText, isMissing } from './support/expected.js';

const Options = z
  .strictObject({
    /** Regular expression (JavaScript syntax); defaults to the case's `expected`. */
    pattern: z.string().optional(),
    /** Require the whole output to match, not just a part of it. */
    full_match: z.boolean().default(false),
    case_sensitive: z.boolean().default(true),
    /** Extra JavaScript regex flags, e.g. "ms" (i is added when case_sensitive is false). */
    flags: z
      .string()
      .regex(/^[imsuv]*$/, 'flags may only contain i, m, s, u, v')
      .default(''),
  })
  .superRefine((o, ctx) => {
    if (o.pattern === undefined) return;
    try {
      new RegExp(o.pattern, o.flags);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `invalid regular expression: ${errorMessage(err)}`,
      });
    }
  });

function buildFlags(flags: string, caseSensitive: boolean): string {
  let f = flags;
  if (!caseSensitive && !f.includes('i')) f += 'i';
  return f;
}

/**
 * Passes when the output matches a regular expression (anywhere, or the whole output with full_match).
 * @example { name: regex_match, options: { pattern: 'ORD-[0-9]{5}' } }
 */
export const regexMatch = defineEvaluator({
  name: 'regex_match',
  description:
    'Output matches a regular expression, searched or full match (options: pattern, full_match, case_sensitive, flags).',
  options: Options,
  create(opts) {
    const flags = buildFlags(opts.flags, opts.case_sensitive);
    const compiled = opts.pattern !== undefined ? new RegExp(opts.pattern, flags) : undefined;
    return {
      name: 'regex_match',
      evaluate(testCase, output) {
        const source = opts.pattern ?? (isMissing(testCase.expected) ? undefined : expectedText(testCase.expected));
        const base = { pattern: source ?? null, flags, full_match: opts.full_match, match: null as string | null };
        if (isError(output)) return { ...errorResult('regex_match', output), details: base };
        if (source === undefined) {
          return result({
            evaluator: 'regex_match',
            score: 0,
            passed: false,
            explanation: 'no pattern given (option `pattern` or case `expected`)',
            details: base,
          });
        }
        let re: RegExp;
        try {
          re = compiled ?? new RegExp(source, flags);
        } catch (err) {
          return result({
            evaluator: 'regex_match',
            score: 0,
            passed: false,
            explanation: `invalid regular expression: ${errorMessage(err)}`,
            details: base,
          });
        }
        const text = outputText(output);
        let match: string | null = null;
        if (opts.full_match) {
          // Sticky from 0 plus "nothing after" works whatever the flags (even m, where $ means end of line).
          const whole = new RegExp(`(?:${re.source})(?![\\s\\S])`, `${re.flags.replace(/[gy]/g, '')}y`);
          whole.lastIndex = 0;
          const m = whole.exec(text);
          match = m ? m[0] : null;
        } else {
          const m = re.exec(text);
          match = m ? m[0] : null;
        }
        const passed = match !== null;
        return result({
          evaluator: 'regex_match',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `output ${opts.full_match ? 'fully matches' : 'matches'} /${clip(source, 80)}/ ('${clip(match ?? '', 80)}')`
            : `output does not ${opts.full_match ? 'fully match' : 'match'} /${clip(source, 80)}/`,
          details: { ...base, match },
        });
      },
    };
  },
});
