import type { ModelRequest, ModelUsage } from '../provider.js';

/** Rough token count for text a vendor did not count for us: `max(1, floor(len / 4))`. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.floor(text.length / 4));
}

/** Estimated input usage of a request: system prompt plus every message body; output 0. */
export function estimateRequestUsage(request: ModelRequest): ModelUsage {
  const text = request.system_prompt + request.messages.map((m) => m.content).join('');
  return { input_tokens: estimateTokens(text), output_tokens: 0, estimated: true };
}

/** Usage for one completed call computed locally (always marked estimated). */
export function estimateCallUsage(request: ModelRequest, outputText: string): ModelUsage {
  return {
    input_tokens: estimateRequestUsage(request).input_tokens,
    output_tokens: outputText.length > 0 ? estimateTokens(outputText) : 0,
    estimated: true,
  };
}
