import { z } from 'zod';
import type { ToolCallRecord } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import { jsonEqual } from './json.js';
import { schemaProblem, validateAgainst } from './schema.js';

/** How a call's arguments are compared with the expected ones. */
export const ArgsMatchMode = z.enum(['exact', 'subset', 'regex', 'schema', 'ignore']);
export type ArgsMatchMode = z.infer<typeof ArgsMatchMode>;

/** An expected tool call: a name, or a name with arguments and how to compare them. */
export const ExpectedToolCall = z.union([
  z.string().min(1),
  z
    .strictObject({
      name: z.string().min(1),
      /**
       * exact/subset: expected argument values; regex: argument name -> pattern (tested against the value as
       * text); schema: a JSON Schema for the whole argument object.
       */
      args: z.record(z.string(), z.unknown()).optional(),
      match: ArgsMatchMode.optional(),
    })
    .superRefine((o, ctx) => {
      if (o.match === 'schema' && o.args !== undefined) {
        const problem = schemaProblem(o.args);
        if (problem) ctx.addIssue({ code: 'custom', path: ['args'], message: `invalid JSON Schema: ${problem}` });
      }
      if (o.match === 'regex' && o.args) {
        for (const [k, v] of Object.entries(o.args)) {
          if (typeof v !== 'string') {
            ctx.addIssue({ code: 'custom', path: ['args', k], message: 'regex mode needs a pattern string' });
            continue;
          }
          try {
            new RegExp(v, 'u');
          } catch (err) {
            ctx.addIssue({
              code: 'custom',
              path: ['args', k],
              message: `invalid regular expression: ${errorMessage(err)}`,
            });
          }
        }
      }
    }),
]);
export type ExpectedToolCall = z.infer<typeof ExpectedToolCall>;

export interface NormalizedExpectation {
  name: string;
  args?: Record<string, unknown>;
  match: ArgsMatchMode;
}

export function normalizeExpectation(e: ExpectedToolCall, defaultMatch: ArgsMatchMode): NormalizedExpectation {
  if (typeof e === 'string') return { name: e, match: 'ignore' };
  return { name: e.name, args: e.args, match: e.args === undefined ? 'ignore' : (e.match ?? defaultMatch) };
}

const regexCache = new Map<string, RegExp>();
/** Compiled argument patterns, cached (the same few patterns are tested against every call of a run). */
function compiled(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    if (regexCache.size > 1000) regexCache.clear();
    re = new RegExp(pattern, 'u');
    regexCache.set(pattern, re);
  }
  return re;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

function show(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/** Why a call's arguments do not satisfy an expectation, or null when they do. */
export function argsMismatch(call: ToolCallRecord, exp: NormalizedExpectation): string | null {
  const args = call.args ?? {};
  const want = exp.args;
  if (exp.match === 'ignore' || want === undefined) return null;
  switch (exp.match) {
    case 'exact':
      return jsonEqual(args, want) ? null : `arguments ${show(args)} are not exactly ${show(want)}`;
    case 'subset':
      for (const [k, v] of Object.entries(want)) {
        if (!Object.hasOwn(args, k)) return `argument '${k}' is missing`;
        if (!jsonEqual(args[k], v)) return `argument '${k}' is ${show(args[k])}, expected ${show(v)}`;
      }
      return null;
    case 'regex':
      for (const [k, pattern] of Object.entries(want)) {
        if (!Object.hasOwn(args, k)) return `argument '${k}' is missing`;
        if (!compiled(String(pattern)).test(asText(args[k])))
          return `argument '${k}' (${show(args[k])}) does not match /${pattern}/`;
      }
      return null;
    case 'schema': {
      const violations = validateAgainst(want, args);
      return violations.length === 0 ? null : violations.map((v) => `${v.path} ${v.message}`).join('; ');
    }
  }
}

/** True when a call satisfies an expectation (same name, arguments accepted). */
export function callMatches(call: ToolCallRecord, exp: NormalizedExpectation): boolean {
  return call.tool_name === exp.name && argsMismatch(call, exp) === null;
}
