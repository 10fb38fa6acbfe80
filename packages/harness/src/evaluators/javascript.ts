import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { AgentOutput } from '../core/agent.js';
import { isError, outputText } from '../core/agent.js';
import type { TestCase } from '../core/testcase.js';
import { importModule } from '../plugins/import.js';
import { defineEvaluator, errorResult, result } from './base.js';

const Options = z.strictObject({
  /** Module file and export: "./checks.ts#isPolite" (TypeScript is loaded through tsx). Default export if no #name. */
  module: z.string().regex(/^[^#]+(#[A-Za-z_$][\w$]*)?$/, 'expected "path/to/file.js" or "path/to/file.ts#exportName"'),
  /** Passed to the function as context.config. */
  config: z.record(z.string(), z.unknown()).default({}),
});

/** What a user's check function receives besides the output and the case. */
export interface JavascriptCheckContext {
  /** The output as text (objects as compact JSON). */
  text: string;
  config: Record<string, unknown>;
  signal?: AbortSignal;
}

/** What a user's check may return: a boolean, a score in [0, 1], or a full verdict. */
export type JavascriptCheckReturn =
  | boolean
  | number
  | {
      pass?: boolean;
      passed?: boolean;
      score?: number;
      explanation?: string;
      reason?: string;
      details?: Record<string, unknown>;
    };

export type JavascriptCheck = (
  output: AgentOutput,
  testCase: TestCase,
  context: JavascriptCheckContext,
) => JavascriptCheckReturn | Promise<JavascriptCheckReturn>;

/** Normalise a user function's return value into score/passed/explanation; throws on anything else. */
export function interpretReturn(value: unknown): {
  score: number;
  passed: boolean;
  explanation: string;
  details: Record<string, unknown>;
} {
  if (typeof value === 'boolean')
    return {
      score: value ? 1 : 0,
      passed: value,
      explanation: value ? 'check returned true' : 'check returned false',
      details: {},
    };
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new Error(`check returned ${value}; a numeric score must be in [0, 1]`);
    return { score: value, passed: value >= 0.5, explanation: `check returned score ${value}`, details: {} };
  }
  if (value !== null && typeof value === 'object') {
    const v = value as Exclude<JavascriptCheckReturn, boolean | number>;
    const passFlag = v.passed ?? v.pass;
    if (
      v.score !== undefined &&
      (typeof v.score !== 'number' || !Number.isFinite(v.score) || v.score < 0 || v.score > 1)
    ) {
      throw new Error(`check returned score ${String(v.score)}; it must be a number in [0, 1]`);
    }
    if (passFlag === undefined && v.score === undefined)
      throw new Error('check returned an object without `passed` or `score`');
    const score = v.score ?? (passFlag ? 1 : 0);
    const passed = passFlag ?? score >= 0.5;
    return { score, passed: Boolean(passed), explanation: v.explanation ?? v.reason ?? '', details: v.details ?? {} };
  }
  throw new Error(
    `check returned ${value === null ? 'null' : typeof value}; expected a boolean, a number or {passed, score, explanation}`,
  );
}

/**
 * Runs a function exported by a local JS or TS module: `(output, testCase, {text, config}) =>` boolean,
 * score, or {passed, score, explanation}. The module is loaded once per evaluator.
 * @example { name: javascript, options: { module: ./checks.ts#mentionsOrderId } }
 */
export const javascript = defineEvaluator({
  name: 'javascript',
  example: { module: './checks.mjs#mentionsOrder' },
  description:
    'Custom check: a function from a JS/TS module returns pass/score/explanation (options: module "file#export", config).',
  options: Options,
  create(opts, ctx) {
    const [path = '', exportName = 'default'] = opts.module.split('#');
    const file = resolve(ctx.baseDir, path);
    if (!existsSync(file)) throw new Error(`javascript: module not found: ${file}`);
    let loaded: Promise<JavascriptCheck> | undefined;
    const load = () => {
      loaded ??= importModule(file, ctx.baseDir).then((mod) => {
        const fn =
          mod[exportName] ??
          (exportName === 'default' ? (mod as { default?: { default?: unknown } }).default?.default : undefined);
        if (typeof fn !== 'function') {
          const names = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
          throw new Error(
            `javascript: ${path} has no exported function '${exportName}' (functions: ${names.join(', ') || 'none'})`,
          );
        }
        return fn as JavascriptCheck;
      });
      return loaded;
    };
    return {
      name: 'javascript',
      async evaluate(testCase, output, evalCtx) {
        if (isError(output)) return errorResult('javascript', output);
        const fn = await load();
        const verdict = interpretReturn(
          await fn(output, testCase, { text: outputText(output), config: opts.config, signal: evalCtx?.signal }),
        );
        return result({
          evaluator: 'javascript',
          score: verdict.score,
          passed: verdict.passed,
          explanation:
            verdict.explanation || `${exportName} ${verdict.passed ? 'passed' : 'failed'} (score ${verdict.score})`,
          details: { module: opts.module, ...verdict.details },
        });
      },
    };
  },
});
