import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip, isMissing, resolveExpected } from './support/expected.js';
import { joinPath, maxMatching, parseJsonLoose } from './support/json.js';

const Options = z.strictObject({
  /** Compare against this instead of the case's `expected` (a JSON value or JSON text). */
  value: z.unknown().optional(),
  /** Extra keys in output objects (and extra array items when ignore_order) are allowed. */
  subset: z.boolean().default(true),
  /** Arrays match as multisets rather than position by position. */
  ignore_order: z.boolean().default(true),
  /** Find JSON inside prose or a Markdown code fence in the output. */
  extract: z.boolean().default(true),
});
type Options = z.infer<typeof Options>;

function describe(v: unknown): string {
  return clip(JSON.stringify(v) ?? String(v), 80);
}

/**
 * Compare `actual` with `expected`; returns the path and reason of the first mismatch, or null.
 * Numbers compare by value, objects by key; see Options for subset and ignore_order.
 */
export function jsonMismatch(
  actual: unknown,
  expected: unknown,
  opts: Pick<Options, 'subset' | 'ignore_order'>,
  path = '$',
): string | null {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: expected an object, got ${describe(actual)}`;
    }
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const key of Object.keys(e)) {
      if (!Object.hasOwn(a, key)) return `${joinPath(path, key)}: missing`;
      const sub = jsonMismatch(a[key], e[key], opts, joinPath(path, key));
      if (sub) return sub;
    }
    if (!opts.subset) {
      const extra = Object.keys(a).filter((k) => !Object.hasOwn(e, k));
      if (extra.length > 0) return `${path}: unexpected key(s) ${extra.map((k) => `'${k}'`).join(', ')}`;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${describe(actual)}`;
    if (!opts.ignore_order) {
      if (actual.length !== expected.length) {
        return `${path}: expected ${expected.length} item(s), got ${actual.length}`;
      }
      for (let i = 0; i < expected.length; i++) {
        const sub = jsonMismatch(actual[i], expected[i], opts, joinPath(path, i));
        if (sub) return sub;
      }
      return null;
    }
    const pairing = maxMatching(
      expected.length,
      actual.length,
      (l, r) => jsonMismatch(actual[r], expected[l], opts) === null,
    );
    const unmatched = pairing.indexOf(-1);
    if (unmatched !== -1) return `${joinPath(path, unmatched)}: no matching item for ${describe(expected[unmatched])}`;
    if (!opts.subset && actual.length !== expected.length) {
      return `${path}: expected ${expected.length} item(s), got ${actual.length}`;
    }
    return null;
  }
  if (actual === expected) return null;
  return `${path}: expected ${describe(expected)}, got ${describe(actual)}`;
}

/**
 * Passes when the output's JSON matches the expected JSON (subset and order-free by default).
 * Tolerates Markdown fences and prose around the JSON.
 * @example { name: json_match, options: { subset: false } }
 */
export const jsonMatch = defineEvaluator({
  name: 'json_match',
  description: 'Output JSON matches the expected JSON; tolerates code fences (options: subset, ignore_order, extract).',
  options: Options,
  create(opts) {
    return {
      name: 'json_match',
      evaluate(testCase, output) {
        if (isError(output)) return errorResult('json_match', output);
        const expectedRaw = resolveExpected(opts.value, testCase);
        if (isMissing(expectedRaw)) {
          return result({
            evaluator: 'json_match',
            score: 1,
            passed: true,
            explanation: 'no expected JSON given (case `expected` or option `value`); passed by default',
            details: { skipped: true },
          });
        }
        const expected =
          typeof expectedRaw === 'string'
            ? parseJsonLoose(expectedRaw, false)
            : { ok: true as const, value: expectedRaw };
        if (!expected.ok) {
          return result({
            evaluator: 'json_match',
            score: 0,
            passed: false,
            explanation: `expected value is not valid JSON: ${expected.error}`,
          });
        }
        const actual = parseJsonLoose(output.output, opts.extract);
        if (!actual.ok) {
          return result({
            evaluator: 'json_match',
            score: 0,
            passed: false,
            explanation: `output is not valid JSON: ${actual.error}`,
            details: { raw_output: clip(outputText(output), 1000) },
          });
        }
        const mismatch = jsonMismatch(actual.value, expected.value, opts);
        return result({
          evaluator: 'json_match',
          score: mismatch ? 0 : 1,
          passed: mismatch === null,
          explanation: mismatch ? `JSON differs at ${mismatch}` : 'output JSON matches the expected JSON',
          details: {
            subset: opts.subset,
            ignore_order: opts.ignore_order,
            mismatch,
            parsed_actual: actual.value,
            parsed_expected: expected.value,
          },
        });
      },
    };
  },
});
