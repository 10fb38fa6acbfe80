import { z } from 'zod';
import type { AgentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import { toToolCall, toUsage } from '../normalize.js';
import { type CompiledJsonPath, compileJsonPath, JsonPathError } from './json-path.js';

/**
 * Maps a JSON reply onto AgentOutput fields with JSON paths:
 * `output: $.answer`, `tool_calls: $.steps[*]` (or `{path, name, args, result, status}` for other shapes),
 * `usage: $.usage` (or `{input_tokens: $.a, output_tokens: $.b}`), `cost: $.cost`, `error: $.error`,
 * `metadata: {model: $.model}`.
 */

const Path = z.string().min(1);

export const ResponseMapping = z.strictObject({
  output: Path.optional(),
  tool_calls: z
    .union([
      Path,
      z.strictObject({
        path: Path,
        name: Path.optional(),
        args: Path.optional(),
        result: Path.optional(),
        status: Path.optional(),
        duration: Path.optional(),
      }),
    ])
    .optional(),
  usage: z.union([Path, z.strictObject({ input_tokens: Path.optional(), output_tokens: Path.optional() })]).optional(),
  cost: Path.optional(),
  error: Path.optional(),
  metadata: z.record(z.string(), Path).optional(),
});
export type ResponseMapping = z.infer<typeof ResponseMapping>;

export interface CompiledMapping {
  /** True when at least one field is mapped (the reply must then be JSON). */
  readonly configured: boolean;
  readonly hasOutput: boolean;
  /** Apply to a parsed reply; fields whose path finds nothing are left out. */
  apply(json: unknown): Partial<AgentOutput>;
}

function compile(path: string, where: string): CompiledJsonPath {
  try {
    return compileJsonPath(path);
  } catch (err) {
    throw new JsonPathError(`${where}: ${errorMessage(err)}`);
  }
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** Compile every path once; a bad path throws with its option name (`response.tool_calls.args: ...`). */
export function compileMapping(mapping: ResponseMapping | undefined, where = 'response'): CompiledMapping {
  const m = mapping ?? {};
  const output = m.output ? compile(m.output, `${where}.output`) : null;
  const error = m.error ? compile(m.error, `${where}.error`) : null;
  const cost = m.cost ? compile(m.cost, `${where}.cost`) : null;
  const metadata = Object.entries(m.metadata ?? {}).map(([k, p]) => [k, compile(p, `${where}.metadata.${k}`)] as const);
  let tools: null | { list: CompiledJsonPath; fields: Partial<Record<string, CompiledJsonPath>> } = null;
  if (typeof m.tool_calls === 'string') tools = { list: compile(m.tool_calls, `${where}.tool_calls`), fields: {} };
  else if (m.tool_calls) {
    const { path, ...rest } = m.tool_calls;
    const fields: Partial<Record<string, CompiledJsonPath>> = {};
    for (const [k, p] of Object.entries(rest)) if (p) fields[k] = compile(p, `${where}.tool_calls.${k}`);
    tools = { list: compile(path, `${where}.tool_calls.path`), fields };
  }
  let usage: null | CompiledJsonPath | { input?: CompiledJsonPath; output?: CompiledJsonPath } = null;
  if (typeof m.usage === 'string') usage = compile(m.usage, `${where}.usage`);
  else if (m.usage) {
    usage = {
      input: m.usage.input_tokens ? compile(m.usage.input_tokens, `${where}.usage.input_tokens`) : undefined,
      output: m.usage.output_tokens ? compile(m.usage.output_tokens, `${where}.usage.output_tokens`) : undefined,
    };
  }
  const configured = Boolean(output || error || cost || tools || usage || metadata.length > 0);

  return {
    configured,
    hasOutput: output !== null,
    apply(json) {
      const out: Partial<AgentOutput> = {};
      if (output) {
        const v = output.select(json);
        if (v !== undefined) {
          out.output =
            typeof v === 'string' || (v !== null && typeof v === 'object' && !Array.isArray(v))
              ? (v as string | Record<string, unknown>)
              : JSON.stringify(v);
        }
      }
      if (error) {
        const v = error.all(json)[0];
        if (v !== undefined && v !== null && v !== false && v !== '') {
          out.error = typeof v === 'string' ? v : JSON.stringify(v);
        }
      }
      if (cost) {
        const v = num(cost.all(json)[0]);
        if (v !== undefined && v >= 0) out.cost = v;
      }
      if (tools) {
        const items = tools.list.all(json).flatMap((v) => (Array.isArray(v) && !tools.list.multi ? v : [v]));
        const fields = tools.fields;
        out.tool_calls = items
          .map((item) => {
            if (Object.keys(fields).length === 0) return toToolCall(item);
            const pick = (k: string) => fields[k]?.all(item)[0];
            return toToolCall({
              name: pick('name') ?? (item as Record<string, unknown>)?.name,
              args: pick('args'),
              result: pick('result'),
              status: pick('status'),
              duration: pick('duration'),
            });
          })
          .filter((c) => c !== null);
      }
      if (usage) {
        if ('all' in usage) {
          const u = toUsage(usage.all(json)[0]);
          if (u) out.usage = u;
        } else {
          const i = num(usage.input?.all(json)[0]);
          const o = num(usage.output?.all(json)[0]);
          if (i !== undefined || o !== undefined) {
            out.usage = { input_tokens: Math.round(i ?? 0), output_tokens: Math.round(o ?? 0), estimated: false };
          }
        }
      }
      if (metadata.length > 0) {
        const md: Record<string, unknown> = {};
        for (const [k, p] of metadata) {
          const v = p.select(json);
          if (v !== undefined) md[k] = v;
        }
        out.metadata = md;
      }
      return out;
    },
  };
}

/** Report JSON-path syntax errors in a mapping as schema issues at their option paths. */
export function checkMapping(
  ctx: { addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void },
  mapping: ResponseMapping | undefined,
  path: PropertyKey[],
): void {
  if (!mapping) return;
  const check = (p: string | undefined, at: PropertyKey[]) => {
    if (p === undefined) return;
    try {
      compileJsonPath(p);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, ...at],
        message: errorMessage(err),
      });
    }
  };
  check(mapping.output, ['output']);
  check(mapping.error, ['error']);
  check(mapping.cost, ['cost']);
  if (typeof mapping.tool_calls === 'string') check(mapping.tool_calls, ['tool_calls']);
  else if (mapping.tool_calls) {
    for (const [k, v] of Object.entries(mapping.tool_calls)) check(v, ['tool_calls', k]);
  }
  if (typeof mapping.usage === 'string') check(mapping.usage, ['usage']);
  else if (mapping.usage) for (const [k, v] of Object.entries(mapping.usage)) check(v, ['usage', k]);
  for (const [k, v] of Object.entries(mapping.metadata ?? {})) check(v, ['metadata', k]);
}
