import { AgentOutput, type AgentOutputInput, type TokenUsage, type ToolCallRecord } from '../core/agent.js';
import { issuePath } from '../core/zod-issues.js';

/** Shared by the network and process adapters: turn loosely shaped agent replies into core models. */

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/**
 * A tool call in any common shape: `{tool_name|name|tool|function.name, args|arguments|input|parameters,
 * result|output, duration|duration_ms, status|is_error|error}`. Arguments given as a JSON string are parsed.
 * Returns null when no tool name can be found.
 */
export function toToolCall(raw: unknown): ToolCallRecord | null {
  if (!isObject(raw)) return null;
  const fn = isObject(raw.function) ? raw.function : undefined;
  const name = [raw.tool_name, raw.name, raw.tool, fn?.name].find((v) => typeof v === 'string' && v.length > 0);
  if (typeof name !== 'string') return null;
  let args: unknown = raw.args ?? raw.arguments ?? raw.input ?? raw.parameters ?? fn?.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      args = { value: args };
    }
  }
  if (!isObject(args)) args = args === undefined || args === null ? {} : { value: args };
  const result = raw.result !== undefined ? raw.result : raw.output;
  let duration = num(raw.duration);
  if (duration === undefined && num(raw.duration_ms) !== undefined) duration = (num(raw.duration_ms) as number) / 1000;
  const errorText = typeof raw.error === 'string' && raw.error ? raw.error : null;
  const failed = raw.status === 'error' || raw.is_error === true || raw.isError === true || errorText !== null;
  return {
    tool_name: name,
    args: args as Json,
    ...(result !== undefined ? { result } : {}),
    duration: duration !== undefined && duration >= 0 ? duration : null,
    status: failed ? 'error' : 'success',
    error: errorText,
  };
}

/** A list of tool calls (non-arrays become a one-element list; unrecognisable entries are dropped). */
export function toToolCalls(raw: unknown): ToolCallRecord[] {
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return list.map(toToolCall).filter((c): c is ToolCallRecord => c !== null);
}

/**
 * Complete an AgentOutput from parts the adapter built itself (tool calls from toToolCall, usage from toUsage,
 * a string or plain-object output). Skips schema validation, which the hot path of a 1,000-case run would
 * otherwise pay for every reply; untrusted shapes go through `replyToOutput` instead.
 */
export function completeOutput(p: Partial<AgentOutput>): AgentOutput {
  const out: AgentOutput = {
    output: p.output ?? '',
    error: p.error ?? null,
    latency: p.latency ?? null,
    time_to_first_token: p.time_to_first_token ?? null,
    tool_calls: p.tool_calls ?? [],
    trace: p.trace ?? null,
    usage: p.usage ?? null,
    cost: p.cost ?? null,
    cost_is_estimated: p.cost_is_estimated ?? false,
    metadata: p.metadata ?? {},
  };
  if (p.transient !== undefined) out.transient = p.transient;
  if (p.retry_after !== undefined) out.retry_after = p.retry_after;
  return out;
}

/** Token usage from `{input_tokens|prompt_tokens|inputTokens, output_tokens|completion_tokens|outputTokens}`. */
export function toUsage(raw: unknown): TokenUsage | null {
  if (!isObject(raw)) return null;
  const input = num(raw.input_tokens ?? raw.prompt_tokens ?? raw.inputTokens ?? raw.promptTokens);
  const output = num(raw.output_tokens ?? raw.completion_tokens ?? raw.outputTokens ?? raw.completionTokens);
  if (input === undefined && output === undefined) return null;
  return {
    input_tokens: Math.max(0, Math.round(input ?? 0)),
    output_tokens: Math.max(0, Math.round(output ?? 0)),
    estimated: raw.estimated === true,
  };
}

/** The failure shape every adapter returns instead of throwing. */
export function errorOutput(
  message: string,
  extra: { transient?: boolean; retry_after?: number; latency?: number | null; metadata?: Json } = {},
): AgentOutput {
  return completeOutput({
    error: message,
    latency: extra.latency === null || extra.latency === undefined ? null : Math.max(0, extra.latency),
    metadata: extra.metadata ?? {},
    transient: extra.transient ? true : undefined,
    retry_after:
      extra.retry_after !== undefined && Number.isFinite(extra.retry_after)
        ? Math.max(0, extra.retry_after)
        : undefined,
  });
}

/**
 * An agent reply in the protocol shape `{output, tool_calls?, usage?, cost?, error?, metadata?, trace?}`
 * (used by JSON-lines processes and JSON-printing CLIs). Invalid parts are reported as an error, not guessed.
 */
export function replyToOutput(reply: Json, latency: number | null): AgentOutput {
  const out = reply.output;
  const cost = num(reply.cost);
  const parts = {
    output:
      typeof out === 'string' || isObject(out) ? out : out === undefined || out === null ? '' : JSON.stringify(out),
    error: typeof reply.error === 'string' ? reply.error : isObject(reply.error) ? JSON.stringify(reply.error) : null,
    latency,
    tool_calls: toToolCalls(reply.tool_calls),
    usage: toUsage(reply.usage),
    metadata: isObject(reply.metadata) ? reply.metadata : {},
  };
  if (reply.trace === undefined && (reply.metadata === undefined || isObject(reply.metadata))) {
    // Every part is built by the normalisers, so no schema pass is needed.
    return completeOutput({ ...parts, cost: cost !== undefined && cost >= 0 ? cost : null });
  }
  const partial: AgentOutputInput = { ...parts };
  if (cost !== undefined && cost >= 0) partial.cost = cost;
  if (isObject(reply.trace)) partial.trace = reply.trace as AgentOutputInput['trace'];
  const parsed = AgentOutput.safeParse(partial);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const where = issue ? issuePath(issue, '') : '';
  return errorOutput(`agent reply does not fit the output shape at '${where}': ${issue?.message ?? 'invalid'}`, {
    latency,
  });
}

/** Compact, single-line excerpt of untrusted text for error messages. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
