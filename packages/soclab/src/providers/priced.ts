import { estimateCostUsd, type ModelPrice, type ModelProvider, type ModelResponse } from '@aeh/models';
import { wrapProvider } from './wrap-provider.js';

/**
 * Vendor providers whose cost comes from the price table. Agents behind `http` and `mcp` report no cost by contract,
 * `ollama` is local (0.0) and `mock` is scripted, so a missing price means something only for these.
 */
export const PRICED_PROVIDER_IDS: readonly string[] = Object.freeze([
  'openai',
  'azure_openai',
  'anthropic',
  'gemini',
  'vertex',
  'xai',
  'openai_compatible',
]);

/** True when turns of this provider/model would have unknown cost (so protected mode's spend limit cannot trip). */
export function isUnpriced(providerId: string, model: string): boolean {
  return (
    PRICED_PROVIDER_IDS.includes(providerId) && estimateCostUsd(model, { input_tokens: 1, output_tokens: 1 }) === null
  );
}

/**
 * A provider whose turns without a vendor or table cost are priced from the tokens at a declared price (labelled
 * estimated), so a protected campaign's spend limit works for a model the price table does not know.
 */
export function withDeclaredPrice(inner: ModelProvider, price: ModelPrice): ModelProvider {
  const priced = (r: ModelResponse): ModelResponse =>
    r.estimated_cost_usd !== null
      ? r
      : { ...r, estimated_cost_usd: estimateCostUsd(r.model, r.usage, { [r.model]: price }), cost_is_estimated: true };
  return wrapProvider(inner, {
    generate: async (req, signal) => priced(await inner.generate(req, signal)),
    generateStructured: async (req, signal) => priced(await inner.generateStructured(req, signal)),
    requestTool: async (req, signal) => priced(await inner.requestTool(req, signal)),
    continueAfterTool: async (req, name, result, signal) =>
      priced(await inner.continueAfterTool(req, name, result, signal)),
  });
}
