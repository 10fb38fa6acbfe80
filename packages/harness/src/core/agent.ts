import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/** Token counts reported by (or estimated for) an agent or judge call. */
export const TokenUsage = z.object({
  input_tokens: z.number().int().min(0).default(0),
  output_tokens: z.number().int().min(0).default(0),
  /** True when counted locally rather than reported by the agent or vendor. */
  estimated: z.boolean().default(false),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** One tool invocation observed in an agent's trajectory. */
export const ToolCallRecord = z.object({
  tool_name: z.string().min(1),
  args: JsonObject.default({}),
  result: z.unknown().optional(),
  /** Seconds. */
  duration: z.number().min(0).nullable().default(null),
  status: z.enum(['success', 'error']).default('success'),
  error: z.string().nullable().default(null),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;
export type ToolCallRecordInput = z.input<typeof ToolCallRecord>;

export const TraceMessage = z.object({
  role: z.string().min(1),
  content: z.string(),
  name: z.string().optional(),
  metadata: JsonObject.optional(),
});
export type TraceMessage = z.infer<typeof TraceMessage>;

/** A timed unit of agent work (OpenTelemetry-shaped: ids, parent, start and end in ms since epoch). */
export const TraceSpan = z.object({
  span_id: z.string().min(1),
  parent_id: z.string().nullable().default(null),
  name: z.string().min(1),
  kind: z.string().default('internal'),
  start_ms: z.number(),
  end_ms: z.number(),
  status: z.enum(['ok', 'error', 'unset']).default('unset'),
  attributes: JsonObject.default({}),
});
export type TraceSpan = z.infer<typeof TraceSpan>;

/** Observable behaviour of one agent run: tool calls, messages and spans (never private reasoning). */
export const Trace = z.object({
  tool_calls: z.array(ToolCallRecord).default([]),
  messages: z.array(TraceMessage).default([]),
  spans: z.array(TraceSpan).default([]),
  metadata: JsonObject.default({}),
});
export type Trace = z.infer<typeof Trace>;

/** What an adapter returns for one case. Adapters never throw: failures go in `error`. */
export const AgentOutput = z.object({
  output: z.union([z.string(), JsonObject]).default(''),
  error: z.string().nullable().default(null),
  /** Seconds; filled by the runner from the wall clock when the adapter leaves it null. */
  latency: z.number().min(0).nullable().default(null),
  /** Seconds to the first streamed token, when the adapter streams. */
  time_to_first_token: z.number().min(0).nullable().default(null),
  tool_calls: z.array(ToolCallRecord).default([]),
  trace: Trace.nullable().default(null),
  usage: TokenUsage.nullable().default(null),
  /** USD. */
  cost: z.number().min(0).nullable().default(null),
  cost_is_estimated: z.boolean().default(false),
  /** Adapter-classified failure kind that the runner may retry (connection reset, 429, 5xx). */
  transient: z.boolean().optional(),
  /** Seconds the agent asked us to wait before retrying (Retry-After). */
  retry_after: z.number().min(0).optional(),
  metadata: JsonObject.default({}),
});
export type AgentOutput = z.infer<typeof AgentOutput>;
export type AgentOutputInput = z.input<typeof AgentOutput>;

/** Build a complete AgentOutput from a partial one (applies defaults, validates). */
export function agentOutput(partial: AgentOutputInput = {}): AgentOutput {
  return AgentOutput.parse(partial);
}

/** True when the agent run failed (an empty error string still counts as an error). */
export function isError(output: AgentOutput): boolean {
  return output.error !== null && output.error !== undefined;
}

/** The output as text: strings unchanged, objects as compact JSON. */
export function outputText(output: AgentOutput): string {
  return typeof output.output === 'string' ? output.output : JSON.stringify(output.output);
}

/** Tool calls from the output, falling back to the trace's when the top-level list is empty. */
export function toolCalls(output: AgentOutput): ToolCallRecord[] {
  if (output.tool_calls.length > 0) return output.tool_calls;
  return output.trace?.tool_calls ?? [];
}
