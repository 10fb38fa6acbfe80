import { z } from 'zod';
import { isError, type ToolCallRecord, toolCalls } from '../core/agent.js';
import { itemAt } from '../core/item-at.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { maxMatching } from './support/json.js';
import {
  ArgsMatchMode,
  argsMismatch,
  callMatches,
  ExpectedToolCall,
  type NormalizedExpectation,
  normalizeExpectation,
} from './support/tools.js';

const Bounds = z
  .strictObject({ min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() })
  .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, 'min must be <= max');

const Options = z
  .strictObject({
    /** Tools the trajectory is compared with: names, or {name, args, match}. */
    expected_tools: z.array(ExpectedToolCall).default([]),
    /**
     * How the actual calls are compared with expected_tools (LangChain agentevals semantics):
     * strict = same calls in the same order; unordered = same calls in any order; subset = every actual call
     * is among the expected ones; superset = every expected call was made, extra calls allowed (default).
     */
    mode: z.enum(['strict', 'unordered', 'subset', 'superset']).default('superset'),
    /** In superset mode, expected calls must also appear in this order (as a subsequence). */
    ordered: z.boolean().default(false),
    /** Shorthand for mode: strict. */
    exact: z.boolean().default(false),
    /** In superset mode, false means expected tools need not all be called (only order and args are checked). */
    require_all: z.boolean().default(true),
    /** Default argument comparison for expected entries that give args without a match mode. */
    args_match: ArgsMatchMode.exclude(['ignore']).default('subset'),
    /** Tool names that must never be called. */
    forbidden_tools: z.array(z.string().min(1)).default([]),
    /** Per tool: every call of that tool must have these argument values (subset match). */
    validate_args: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
    /** Per tool: every call of that tool must satisfy {args, match} (exact, subset, regex or schema). */
    tool_args: z
      .record(
        z.string(),
        z.strictObject({
          args: z.record(z.string(), z.unknown()),
          match: ArgsMatchMode.exclude(['ignore']).default('subset'),
        }),
      )
      .default({}),
    /** Bounds on the total number of tool calls. */
    min_calls: z.number().int().min(0).optional(),
    max_calls: z.number().int().min(0).optional(),
    /** Bounds on the number of calls per tool, e.g. {search: {max: 3}}. */
    calls: z.record(z.string(), Bounds).default({}),
  })
  .superRefine((o, ctx) => {
    if (o.min_calls !== undefined && o.max_calls !== undefined && o.min_calls > o.max_calls) {
      ctx.addIssue({ code: 'custom', path: ['min_calls'], message: 'min_calls must be <= max_calls' });
    }
    for (const [tool, spec] of Object.entries(o.tool_args)) {
      // Reuse the expected-call validation (regex compiles, schema is valid).
      const check = ExpectedToolCall.safeParse({ name: tool, args: spec.args, match: spec.match });
      if (!check.success)
        for (const i of check.error.issues)
          ctx.addIssue({ ...i, code: 'custom', message: i.message, path: ['tool_args', tool, ...i.path] });
    }
  });
type Options = z.infer<typeof Options>;

function fmt(e: NormalizedExpectation): string {
  return e.args === undefined ? e.name : `${e.name}(${JSON.stringify(e.args)})`;
}

/** Check a trajectory against the options; returns every violation found (empty when it passes). */
export function trajectoryViolations(calls: readonly ToolCallRecord[], opts: Options): string[] {
  const violations: string[] = [];
  const names = calls.map((c) => c.tool_name);
  const expected = opts.expected_tools.map((e) => normalizeExpectation(e, opts.args_match));
  const mode = opts.exact ? 'strict' : opts.mode;

  for (const f of opts.forbidden_tools) {
    const n = names.filter((x) => x === f).length;
    if (n > 0) violations.push(`forbidden tool '${f}' was called ${n} time(s)`);
  }

  if (mode === 'strict') {
    if (calls.length !== expected.length) {
      violations.push(
        `expected exactly ${expected.length} call(s) [${expected.map(fmt).join(', ')}], got ${calls.length} [${names.join(', ')}]`,
      );
    } else {
      for (const [i, want] of expected.entries()) {
        const call = itemAt(calls, i);
        if (call.tool_name !== want.name) {
          violations.push(`call ${i + 1} is '${call.tool_name}', expected '${want.name}'`);
        } else {
          const why = argsMismatch(call, want);
          if (why) violations.push(`call ${i + 1} '${call.tool_name}': ${why}`);
        }
      }
    }
  } else if (mode === 'unordered' || mode === 'subset') {
    const pairing = maxMatching(calls.length, expected.length, (c, e) =>
      callMatches(itemAt(calls, c), itemAt(expected, e)),
    );
    const unmatchedCalls = pairing.flatMap((e, c) => (e === -1 ? [c] : []));
    for (const c of unmatchedCalls) {
      const call = itemAt(calls, c);
      const sameName = expected.find((e) => e.name === call.tool_name);
      const why = sameName ? argsMismatch(call, sameName) : null;
      violations.push(`call ${c + 1} '${call.tool_name}' is not among the expected calls${why ? ` (${why})` : ''}`);
    }
    if (mode === 'unordered') {
      const used = new Set(pairing.filter((e) => e !== -1));
      expected.forEach((e, i) => {
        if (!used.has(i)) violations.push(`expected call ${fmt(e)} was not made`);
      });
    }
  } else if (opts.ordered) {
    // Ordered subsequence: earliest-fit is optimal for subsequence matching.
    let from = 0;
    for (const e of expected) {
      const found = calls.findIndex((call, i) => i >= from && callMatches(call, e));
      if (found === -1) {
        const anywhere = calls.some((c) => callMatches(c, e));
        if (anywhere) violations.push(`expected call ${fmt(e)} was made out of order`);
        else if (opts.require_all) violations.push(describeMissing(calls, e));
      } else from = found + 1;
    }
  } else {
    const pairing = maxMatching(expected.length, calls.length, (e, c) =>
      callMatches(itemAt(calls, c), itemAt(expected, e)),
    );
    if (opts.require_all) {
      pairing.forEach((c, e) => {
        if (c === -1) violations.push(describeMissing(calls, itemAt(expected, e)));
      });
    }
  }

  for (const [tool, want] of Object.entries(opts.validate_args)) {
    checkEveryCall(calls, { name: tool, args: want, match: 'subset' }, violations);
  }
  for (const [tool, spec] of Object.entries(opts.tool_args)) {
    checkEveryCall(calls, { name: tool, args: spec.args, match: spec.match }, violations);
  }

  if (opts.min_calls !== undefined && calls.length < opts.min_calls) {
    violations.push(`${calls.length} tool call(s), at least ${opts.min_calls} required`);
  }
  if (opts.max_calls !== undefined && calls.length > opts.max_calls) {
    violations.push(`${calls.length} tool call(s), at most ${opts.max_calls} allowed`);
  }
  for (const [tool, b] of Object.entries(opts.calls)) {
    const n = names.filter((x) => x === tool).length;
    if (b.min !== undefined && n < b.min) violations.push(`'${tool}' called ${n} time(s), at least ${b.min} required`);
    if (b.max !== undefined && n > b.max) violations.push(`'${tool}' called ${n} time(s), at most ${b.max} allowed`);
  }
  return violations;
}

function describeMissing(calls: readonly ToolCallRecord[], e: NormalizedExpectation): string {
  const lastSameName = calls.findLast((c) => c.tool_name === e.name);
  if (lastSameName === undefined) return `expected tool '${e.name}' was not called`;
  const why = argsMismatch(lastSameName, e);
  return `'${e.name}' was called but not with the expected arguments: ${why}`;
}

function checkEveryCall(calls: readonly ToolCallRecord[], e: NormalizedExpectation, out: string[]): void {
  calls.forEach((c, i) => {
    if (c.tool_name !== e.name) return;
    const why = argsMismatch(c, e);
    if (why) out.push(`call ${i + 1} '${e.name}': ${why}`);
  });
}

/**
 * Checks an agent's tool-call trajectory: expected tools and match mode, forbidden tools, argument matching
 * (exact, subset, regex, JSON Schema), and call-count bounds. Works on any adapter's tool calls, MCP or not.
 * @example { name: tool_usage, options: { expected_tools: [search, {name: book, args: {city: Paris}}], ordered: true, forbidden_tools: [delete_all] } }
 */
export const toolUsage = defineEvaluator({
  name: 'tool_usage',
  description:
    'Tool-call trajectory check: expected tools (strict/unordered/subset/superset), order, forbidden tools, argument matching, call counts.',
  options: Options,
  create(opts) {
    return {
      name: 'tool_usage',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('tool_usage', output);
        const calls = toolCalls(output);
        const violations = trajectoryViolations(calls, opts);
        const passed = violations.length === 0;
        return result({
          evaluator: 'tool_usage',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? `tool-call criteria satisfied (${calls.length} call(s))`
            : violations.length === 1
              ? violations[0]
              : `${violations.length} problems: ${violations.join('; ')}`,
          details: {
            actual_tools: calls.map((c) => c.tool_name),
            expected_tools: opts.expected_tools.map((e) => (typeof e === 'string' ? e : e.name)),
            mode: opts.exact ? 'strict' : opts.mode,
            violations,
          },
        });
      },
    };
  },
});
