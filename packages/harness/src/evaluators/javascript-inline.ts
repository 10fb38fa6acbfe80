import { z } from 'zod';
import { isError } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { inputText } from '../core/testcase.js';
import { defineEvaluator, errorResult, result } from './base.js';

type Check = (output: unknown, context: Record<string, unknown>) => unknown;

/** The function body: an expression is returned; code with its own `return` is used as written. */
function functionBody(code: string): string {
  return /(^|[^\w$.])return\b/.test(code) ? code : `return (${code}\n);`;
}

function compile(code: string): Check {
  try {
    return new Function('output', 'context', `"use strict";\n${functionBody(code)}`) as Check;
  } catch (err) {
    // Statements without a return (`throw ...`, `if (...) {...}`) are a body, not an expression.
    if (functionBody(code) === code) throw err;
    return new Function('output', 'context', `"use strict";\n${code}`) as Check;
  }
}

const Options = z
  .strictObject({
    /**
     * A JavaScript expression (`output.includes('Paris')`) or a function body with `return`. It sees `output`
     * (the text, or the object when the agent returned JSON) and `context` ({ vars, prompt, test }).
     */
    code: z.string().min(1),
    /** A returned number passes when it reaches this; without it, when it is above 0 (promptfoo's rule). */
    threshold: z.number().optional(),
  })
  .superRefine((o, ctx) => {
    // Compiled at validation, so a syntax error is reported with its position before anything runs.
    try {
      compile(o.code);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: `does not compile: ${errorMessage(err)}` });
    }
  });

/**
 * Inline JavaScript check, as promptfoo's `javascript` assertion writes it: true/false, a number (a score,
 * passing at `threshold`), or `{ pass, score, reason }`. The code comes from the suite, which the user runs
 * as they would run a plugin: it is compiled once, in-process, with no sandbox.
 *
 * @example { name: javascript_inline, options: { code: "output.length < 200 && !output.includes('sorry')" } }
 */
export const javascriptInline = defineEvaluator({
  name: 'javascript_inline',
  example: { code: "output.includes('order')" },
  description: "Inline JavaScript check (promptfoo's javascript assertion): boolean, score, or { pass, score, reason }",
  options: Options,
  create: ({ code, threshold }) => {
    let check: Check;
    try {
      check = compile(code);
    } catch (err) {
      throw new Error(`javascript_inline: the code does not compile: ${errorMessage(err)}`);
    }
    return {
      name: 'javascript_inline',
      async evaluate(testCase, output) {
        if (isError(output)) return errorResult('javascript_inline', output);
        const context = {
          vars: testCase.vars,
          prompt: inputText(testCase),
          test: { id: testCase.id, description: testCase.description, vars: testCase.vars },
        };
        const value = await check(output.output, context);
        return verdict(value, threshold);
      },
    };
  },
});

function verdict(value: unknown, threshold: number | undefined) {
  const base = { evaluator: 'javascript_inline' };
  if (typeof value === 'boolean') {
    return result({ ...base, score: value ? 1 : 0, passed: value, explanation: `check returned ${value}` });
  }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new Error('check returned NaN');
    const passed = threshold !== undefined ? value >= threshold : value > 0;
    // promptfoo scores are unbounded; a value outside [0, 1] is reported as is and the verdict scores 1 or 0.
    const score = value >= 0 && value <= 1 ? value : passed ? 1 : 0;
    return result({
      ...base,
      score,
      passed,
      explanation: `check returned ${value} (${passed ? 'passes' : 'fails'} ${threshold !== undefined ? `threshold ${threshold}` : '> 0'})`,
      details: { value },
    });
  }
  if (value && typeof value === 'object') {
    const v = value as { pass?: unknown; score?: unknown; reason?: unknown };
    const passed = typeof v.pass === 'boolean' ? v.pass : typeof v.score === 'number' && v.score > 0;
    const score = typeof v.score === 'number' && v.score >= 0 && v.score <= 1 ? v.score : passed ? 1 : 0;
    return result({
      ...base,
      score,
      passed,
      explanation: typeof v.reason === 'string' ? v.reason : `check returned pass=${passed}`,
    });
  }
  throw new Error(
    `check returned ${value === undefined ? 'undefined' : JSON.stringify(value)}; expected a boolean, a number or { pass, score, reason }`,
  );
}
