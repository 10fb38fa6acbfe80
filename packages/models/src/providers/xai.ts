import type { ModelProvider } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import { registerPrices } from '../shared/pricing.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createOpenAICompatibleProvider } from './openai-compatible.js';

export const XAI_BASE_URL = 'https://api.x.ai/v1';

export interface XaiProviderOptions extends VendorAdapterOptions {
  apiKey: string;
  baseURL?: string;
}

/** xAI Grok through its OpenAI-compatible Chat Completions endpoint. */
export function createXaiProvider(options: XaiProviderOptions): ModelProvider {
  return createOpenAICompatibleProvider({
    providerId: 'xai',
    baseURL: options.baseURL ?? XAI_BASE_URL,
    apiKey: options.apiKey,
    model: options.model ?? xaiEntry.defaultModel,
    capabilities: xaiEntry.capabilities,
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
  });
}

export const xaiEntry: ProviderEntry = {
  id: 'xai',
  adapter: 'createXaiProvider (AI SDK @ai-sdk/openai-compatible, base https://api.x.ai/v1)',
  adapterVersion: '1.0.0',
  envVars: ['XAI_API_KEY'],
  optionalEnvVars: ['XAI_BASE_URL'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: true,
    multimodal_input: false,
  },
  defaultModel: 'grok-4',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level OpenAI Chat Completions stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures via the OpenAI-compatible adapter; not live-validated',
  description: 'xAI Grok',
  create(env, model, opts) {
    const [apiKey] = requireEnv('xai', env, ['XAI_API_KEY']);
    return createXaiProvider({ apiKey, model, baseURL: envValue(env, 'XAI_BASE_URL'), ...opts });
  },
  prices: {
    'grok-4': { input_per_million: 3, output_per_million: 15 },
  },
};
registerPrices(xaiEntry);
