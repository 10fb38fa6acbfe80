import { z } from 'zod';
import { isError, toolCalls } from '../core/agent.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { schemaProblem, validateAgainst } from './support/schema.js';

const Options = z
  .strictObject({
    /** Tool name -> JSON Schema (draft 2020-12) its arguments must satisfy. */
    schemas: z.record(z.string(), z.record(z.string(), z.unknown())),
    /** Fail calls to tools that have no schema here (catches invented tools). */
    require_schema: z.boolean().default(false),
  })
  .superRefine((o, ctx) => {
    for (const [tool, schema] of Object.entries(o.schemas)) {
      const problem = schemaProblem(schema);
      if (problem)
        ctx.addIssue({ code: 'custom', path: ['schemas', tool], message: `invalid JSON Schema: ${problem}` });
    }
  });

/**
 * Validates every tool call's arguments against the JSON Schema declared for that tool in the suite;
 * score is the share of valid calls, and every violation is listed.
 * @example { name: tool_args_valid, options: { schemas: { search: { type: object, required: [query] } } } }
 */
export const toolArgsValid = defineEvaluator({
  name: 'tool_args_valid',
  example: { schemas: { search: { type: 'object', required: ['query'] } } },
  description:
    "Each tool call's arguments validate against the JSON Schema declared for that tool; lists every violation.",
  options: Options,
  create(opts) {
    return {
      name: 'tool_args_valid',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('tool_args_valid', output);
        const calls = toolCalls(output);
        const problems: { call: number; tool: string; path: string; message: string }[] = [];
        let checked = 0;
        let invalidCalls = 0;
        calls.forEach((c, i) => {
          const schema = opts.schemas[c.tool_name];
          if (!schema) {
            if (opts.require_schema) {
              invalidCalls++;
              checked++;
              problems.push({ call: i + 1, tool: c.tool_name, path: '', message: 'no schema declared for this tool' });
            }
            return;
          }
          checked++;
          const v = validateAgainst(schema, c.args ?? {});
          if (v.length > 0) invalidCalls++;
          for (const x of v) problems.push({ call: i + 1, tool: c.tool_name, path: x.path, message: x.message });
        });
        const passed = invalidCalls === 0;
        return result({
          evaluator: 'tool_args_valid',
          score: checked === 0 ? 1 : (checked - invalidCalls) / checked,
          passed,
          explanation: passed
            ? `${checked} checked call(s) have valid arguments`
            : `${invalidCalls} of ${checked} call(s) have invalid arguments: ${problems.map((p) => `call ${p.call} '${p.tool}' ${p.path} ${p.message}`.replace(/\s+/g, ' ')).join('; ')}`,
          details: { checked, invalid_calls: invalidCalls, problems },
        });
      },
    };
  },
});
