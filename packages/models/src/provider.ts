import { z } from 'zod';

/** Names for tools, stages and obligations: lowercase identifiers. */
export const Identifier = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must match ^[a-z][a-z0-9_]*$');

export const TrustLabel = z.enum(['trusted', 'untrusted']);
export type TrustLabel = z.infer<typeof TrustLabel>;

export const FinishReason = z.enum(['stop', 'tool_proposal', 'length', 'content_filter', 'error']);
export type FinishReason = z.infer<typeof FinishReason>;

export const ProviderCapabilities = z.strictObject({
  tool_calling: z.boolean(),
  structured_output: z.boolean(),
  streaming: z.boolean(),
  usage_reporting: z.boolean(),
  multimodal_input: z.boolean().default(false),
});
export type ProviderCapabilities = z.infer<typeof ProviderCapabilities>;

/** Token counts for one model call; `estimated` is true when computed locally rather than reported by the vendor. */
export const ModelUsage = z.strictObject({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  estimated: z.boolean(),
});
export type ModelUsage = z.infer<typeof ModelUsage>;

export const Message = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  trust: TrustLabel.default('trusted'),
  tool_name: z.string().nullable().default(null),
});
export type Message = z.infer<typeof Message>;
export type MessageInput = z.input<typeof Message>;

export const ToolSpec = z.strictObject({
  name: Identifier,
  description: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

export const ToolCall = z.strictObject({
  name: Identifier,
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** A provider-neutral request. Correlation ids are set when an orchestrator built the request. */
export const ModelRequest = z.strictObject({
  stage: Identifier.default('generate'),
  system_prompt: z.string().default(''),
  messages: z.array(Message).default([]),
  tools: z.array(ToolSpec).default([]),
  response_schema: z.record(z.string(), z.unknown()).nullable().default(null),
  max_output_tokens: z.number().int().min(1).default(1024),
  temperature: z.number().min(0).max(2).default(0),
  run_id: z.string().nullable().default(null),
  trace_id: z.string().nullable().default(null),
  incident_id: z.string().nullable().default(null),
});
export type ModelRequest = z.infer<typeof ModelRequest>;
export type ModelRequestInput = z.input<typeof ModelRequest>;

export const ModelResponse = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  finish_reason: FinishReason,
  output_text: z.string().default(''),
  structured: z.record(z.string(), z.unknown()).nullable().default(null),
  tool_call: ToolCall.nullable().default(null),
  usage: ModelUsage,
  latency_ms: z.number().min(0),
  estimated_cost_usd: z.number().min(0).nullable().default(null),
  cost_is_estimated: z.boolean().default(true),
});
export type ModelResponse = z.infer<typeof ModelResponse>;

/** Extra facts about a provider failure; all optional. */
export interface ProviderErrorOptions extends ErrorOptions {
  /** HTTP status the vendor or agent answered with, when there was one. */
  status?: number;
  /** True when repeating the same call may succeed (rate limit, connection reset); callers decide whether to retry. */
  retryable?: boolean;
  /** Short machine-readable reason, e.g. `rate_limited`, `authentication_rejected`. */
  code?: string;
  /** Seconds the server asked the caller to wait (`Retry-After`), when it said. */
  retryAfterSeconds?: number;
  /** What the model did answer when the reply was unusable (text, usage), so callers can audit and count it. */
  reply?: UnusableReply;
}

/** The text and usage of a reply that could not be used (not JSON, cut short): paid for, so still reported. */
export interface UnusableReply {
  output_text: string;
  finish_reason: FinishReason;
  usage: ModelUsage;
  estimated_cost_usd: number | null;
}

/** Transport, authentication or vendor failure. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly code: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly reply: UnusableReply | undefined;
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.code = options.code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.reply = options.reply;
  }
}
/** The reply does not satisfy the requested shape; adapters never guess. */
export class MalformedResponseError extends ProviderError {
  override name = 'MalformedResponseError';
}
/** The provider explicitly cannot do what was asked; adapters never degrade silently. */
export class CapabilityUnsupportedError extends ProviderError {
  override name = 'CapabilityUnsupportedError';
}

/** The one interface every model vendor, scripted model or remote agent is driven through. */
export interface ModelProvider {
  readonly providerId: string;
  readonly model: string;
  describeCapabilities(): ProviderCapabilities;
  countUsage(request: ModelRequest): ModelUsage;
  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
  generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
  requestTool(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
  continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse>;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<string>;
}
