import type { ModelProvider, ProviderCapabilities } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { absoluteHttpUrl, createVendorProvider } from './vendor.js';

export interface OpenAICompatibleProviderOptions extends VendorAdapterOptions {
  /** Base URL ending before `/chat/completions`, e.g. http://localhost:4000/v1 (LiteLLM) or https://openrouter.ai/api/v1. */
  baseURL: string;
  /** Sent as `Authorization: Bearer` when set. */
  apiKey?: string;
  /** Reported provider id (`xai` and `ollama` reuse this adapter). */
  providerId?: string;
  capabilities?: ProviderCapabilities;
  /** Fixed per-call cost, still labelled estimated (local models: 0). */
  fixedCostUsd?: number;
  headers?: Record<string, string>;
}

/** Any OpenAI-compatible Chat Completions endpoint (LiteLLM, vLLM, OpenRouter, Together, Groq, xAI, Ollama /v1). */
export function createOpenAICompatibleProvider(options: OpenAICompatibleProviderOptions): ModelProvider {
  const providerId = options.providerId ?? openAICompatibleEntry.id;
  absoluteHttpUrl(options.baseURL, `${providerId}: base URL must be an absolute http(s) URL`);
  return createVendorProvider(options, {
    entry: openAICompatibleEntry,
    providerId,
    capabilities: options.capabilities,
    load: async (model) => {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const client = createOpenAICompatible({
        name: providerId,
        baseURL: options.baseURL.replace(/\/+$/, ''),
        apiKey: options.apiKey,
        headers: options.headers,
        includeUsage: true,
        fetch: options.fetch,
      });
      return client.chatModel(model);
    },
    structuredMode: 'response_format',
    jsonModeOnlyWithoutTools: false,
    schemaInResponseFormat: false,
    alternateRoles: false,
    modelFromResponse: true,
    fixedCostUsd: options.fixedCostUsd,
    secrets: options.apiKey ? [options.apiKey] : [],
  });
}

export const openAICompatibleEntry: ProviderEntry = {
  id: 'openai_compatible',
  adapter: 'createOpenAICompatibleProvider (AI SDK @ai-sdk/openai-compatible)',
  adapterVersion: '1.0.0',
  envVars: ['OPENAI_COMPATIBLE_BASE_URL'],
  optionalEnvVars: ['OPENAI_COMPATIBLE_API_KEY'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: false,
    multimodal_input: false,
  },
  defaultModel: 'default',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level OpenAI Chat Completions stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'Gateway path for LiteLLM, vLLM, OpenRouter, Bedrock/Mistral/Cohere/Groq via a gateway',
  notes: ['usage is estimated unless the gateway forwards it'],
  create(env, model, opts) {
    const [baseURL] = requireEnv('openai_compatible', env, ['OPENAI_COMPATIBLE_BASE_URL']);
    return createOpenAICompatibleProvider({
      baseURL,
      apiKey: envValue(env, 'OPENAI_COMPATIBLE_API_KEY'),
      model,
      ...opts,
    });
  },
};
