import {
  type FinishReason,
  MalformedResponseError,
  type ModelResponse,
  type ModelUsage,
  type ToolCall,
  ToolCall as ToolCallSchema,
} from '../provider.js';
import { parseStructured } from './parse.js';
import { estimateCostUsd, type ModelPrice, PRICE_TABLE } from './pricing.js';

export interface BuildResponseInput {
  provider: string;
  model: string;
  finish: FinishReason;
  text: string;
  toolCall: ToolCall | null;
  usage: ModelUsage;
  latencyMs: number;
  /** Parse `text` as a JSON object when there is no tool call and the call did not end in error. */
  wantStructured: boolean;
  /** Cost the vendor reported; when absent the cost is estimated from the price table. */
  reportedCostUsd?: number | null;
  /** Already-parsed structured value (e.g. from a native structured-output API); skips text parsing. */
  structured?: Record<string, unknown> | null;
  priceTable?: Readonly<Record<string, ModelPrice>>;
}

/**
 * Builds a provider-neutral ModelResponse. A structured call whose reply is not a JSON object throws
 * MalformedResponseError; a structured call cut short (`length`, `content_filter`) is malformed too,
 * because a truncated or filtered object must not be read as an answer.
 */
export function buildResponse(input: BuildResponseInput): ModelResponse {
  let toolCall: ToolCall | null = null;
  if (input.toolCall) {
    const parsed = ToolCallSchema.safeParse(input.toolCall);
    if (!parsed.success) {
      throw new MalformedResponseError(
        `${input.provider} proposed a tool call with an invalid name or arguments: ${JSON.stringify(input.toolCall.name)}`,
      );
    }
    toolCall = parsed.data;
  }
  let structured: Record<string, unknown> | null = null;
  const reported = input.reportedCostUsd;
  const hasReportedCost = typeof reported === 'number' && Number.isFinite(reported) && reported >= 0;
  if (input.wantStructured && !toolCall && input.finish !== 'error') {
    // The unusable reply travels with the error: it was paid for, and a reader may want to see it.
    const reply = {
      output_text: input.text,
      finish_reason: input.finish,
      usage: input.usage,
      estimated_cost_usd: hasReportedCost
        ? (reported as number)
        : estimateCostUsd(input.model, input.usage, input.priceTable ?? PRICE_TABLE),
    };
    if (input.finish === 'length' || input.finish === 'content_filter') {
      throw new MalformedResponseError(
        `${input.provider} stopped with finish reason '${input.finish}' before a complete structured reply`,
        { reply },
      );
    }
    try {
      structured = input.structured ?? parseStructured(input.text);
    } catch (err) {
      if (err instanceof MalformedResponseError) throw new MalformedResponseError(err.message, { reply });
      throw err;
    }
  }
  return {
    provider: input.provider,
    model: input.model,
    finish_reason: toolCall ? 'tool_proposal' : input.finish,
    output_text: input.text,
    structured,
    tool_call: toolCall,
    usage: input.usage,
    latency_ms: input.latencyMs,
    estimated_cost_usd: hasReportedCost
      ? reported
      : estimateCostUsd(input.model, input.usage, input.priceTable ?? PRICE_TABLE),
    cost_is_estimated: !hasReportedCost,
  };
}
