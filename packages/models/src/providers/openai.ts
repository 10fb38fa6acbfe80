import type { ModelProvider } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import { registerPrices } from '../shared/pricing.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createVendorProvider } from './vendor.js';

export interface OpenAIProviderOptions extends VendorAdapterOptions {
  apiKey: string;
  /** Defaults to https://api.openai.com/v1. */
  baseURL?: string;
  organization?: string;
}

/** OpenAI Chat Completions through the AI SDK (`@ai-sdk/openai`). Structured calls use `response_format: json_object`. */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  return createVendorProvider(options, {
    entry: openaiEntry,
    load: async (model) => {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const openai = createOpenAI({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        organization: options.organization,
        fetch: options.fetch,
      });
      return openai.chat(model);
    },
    structuredMode: 'response_format',
    jsonModeOnlyWithoutTools: false,
    alternateRoles: false,
    modelFromResponse: true,
    secrets: [options.apiKey],
  });
}

export const openaiEntry: ProviderEntry = {
  id: 'openai',
  adapter: 'createOpenAIProvider (AI SDK @ai-sdk/openai, Chat Completions)',
  adapterVersion: '1.0.0',
  envVars: ['OPENAI_API_KEY'],
  optionalEnvVars: ['OPENAI_BASE_URL'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: true,
    multimodal_input: true,
  },
  defaultModel: 'gpt-4o-mini',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level OpenAI Chat Completions stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'OpenAI Chat Completions',
  create(env, model, opts) {
    const [apiKey] = requireEnv('openai', env, ['OPENAI_API_KEY']);
    return createOpenAIProvider({ apiKey, model, baseURL: envValue(env, 'OPENAI_BASE_URL'), ...opts });
  },
  prices: {
    'gpt-4o': { input_per_million: 2.5, output_per_million: 10 },
    'gpt-4o-mini': { input_per_million: 0.15, output_per_million: 0.6 },
  },
};
registerPrices(openaiEntry);
