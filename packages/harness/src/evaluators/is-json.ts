import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip } from './support/expected.js';

const Options = z.strictObject({
  /** Accept JSON wrapped in a Markdown code fence (the whole output). */
  allow_fences: z.boolean().default(true),
  /** Require a particular top-level type. */
  type: z.enum(['object', 'array', 'any']).default('any'),
});

/**
 * Passes when the whole output is valid JSON (optionally inside one Markdown fence); prose around it fails.
 * Use json_schema to check the structure too.
 * @example { name: is_json, options: { type: object } }
 */
export const isJson = defineEvaluator({
  name: 'is_json',
  description: 'Whole output is valid JSON, optionally in one code fence (options: allow_fences, type).',
  options: Options,
  create(opts) {
    return {
      name: 'is_json',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('is_json', output);
        let value: unknown;
        if (typeof output.output !== 'string') value = output.output;
        else {
          const text = output.output.trim();
          const fenced = opts.allow_fences
            ? /^```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/.exec(text)
            : null;
          let parsed: { ok: true; value: unknown } | { ok: false; error: string };
          const body = fenced?.[1] ?? text;
          if (!/^\s*[[{"\-0-9tfn]/.test(body)) {
            // Cheap rejection: a thrown SyntaxError costs microseconds on every prose reply.
            parsed = { ok: false, error: `unexpected text at the start: ${JSON.stringify(body.slice(0, 20))}` };
          } else {
            try {
              parsed = { ok: true, value: JSON.parse(body) };
            } catch (err) {
              parsed = { ok: false, error: errorMessage(err) };
            }
          }
          if (!parsed.ok) {
            return result({
              evaluator: 'is_json',
              score: 0,
              passed: false,
              explanation: `output is not valid JSON: ${parsed.error}`,
              details: { raw_output: clip(outputText(output), 300) },
            });
          }
          value = parsed.value;
        }
        const actualType = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
        const passed = opts.type === 'any' || actualType === opts.type;
        return result({
          evaluator: 'is_json',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `output is valid JSON (${actualType})`
            : `output is JSON ${actualType}, expected ${opts.type}`,
          details: { type: actualType },
        });
      },
    };
  },
});
