import type { ModelProvider } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import { registerPrices } from '../shared/pricing.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createVendorProvider } from './vendor.js';

export interface AnthropicProviderOptions extends VendorAdapterOptions {
  apiKey: string;
  /** Defaults to https://api.anthropic.com/v1. */
  baseURL?: string;
}

/**
 * Anthropic Messages API through the AI SDK. It has no JSON mode, so structured calls append an instruction to the
 * system prompt and the reply is still parsed strictly; turns alternate and start with a user message.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  return createVendorProvider(options, {
    entry: anthropicEntry,
    load: async (model) => {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: options.apiKey, baseURL: options.baseURL, fetch: options.fetch }).messages(
        model,
      );
    },
    structuredMode: 'system_instruction',
    jsonModeOnlyWithoutTools: false,
    alternateRoles: true,
    modelFromResponse: true,
    secrets: [options.apiKey],
  });
}

export const anthropicEntry: ProviderEntry = {
  id: 'anthropic',
  adapter: 'createAnthropicProvider (AI SDK @ai-sdk/anthropic, Messages API)',
  adapterVersion: '1.0.0',
  envVars: ['ANTHROPIC_API_KEY'],
  optionalEnvVars: ['ANTHROPIC_BASE_URL'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: true,
    multimodal_input: true,
  },
  defaultModel: 'claude-sonnet-4-20250514',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level Anthropic Messages stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'Anthropic Messages API',
  create(env, model, opts) {
    const [apiKey] = requireEnv('anthropic', env, ['ANTHROPIC_API_KEY']);
    return createAnthropicProvider({ apiKey, model, baseURL: envValue(env, 'ANTHROPIC_BASE_URL'), ...opts });
  },
  prices: {
    'claude-sonnet-4-20250514': { input_per_million: 3, output_per_million: 15 },
    'claude-haiku-4-5-20251001': { input_per_million: 1, output_per_million: 5 },
  },
};
registerPrices(anthropicEntry);
