import type { ModelProvider } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import { registerPrices } from '../shared/pricing.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createVendorProvider } from './vendor.js';

export interface GeminiProviderOptions extends VendorAdapterOptions {
  apiKey: string;
  /** Defaults to https://generativelanguage.googleapis.com/v1beta. */
  baseURL?: string;
  /** Headers added to every request (Vertex uses this for its bearer token). */
  headers?: Record<string, string>;
  /** Reported provider id (`vertex` reuses this adapter). */
  providerId?: string;
}

/**
 * Google Gemini (generateContent) through the AI SDK. JSON mode (`responseMimeType: application/json`) is sent only
 * when no function declarations go out, because the API rejects the combination; the reply is parsed strictly.
 */
export function createGeminiProvider(options: GeminiProviderOptions): ModelProvider {
  return createVendorProvider(options, {
    entry: geminiEntry,
    providerId: options.providerId,
    load: async (model) => {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      const google = createGoogleGenerativeAI({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        headers: options.headers,
        fetch: options.fetch,
      });
      return google.languageModel(model);
    },
    structuredMode: 'response_format',
    jsonModeOnlyWithoutTools: true,
    alternateRoles: true,
    modelFromResponse: false,
    secrets: [options.apiKey, ...Object.values(options.headers ?? {})],
  });
}

export const geminiEntry: ProviderEntry = {
  id: 'gemini',
  adapter: 'createGeminiProvider (AI SDK @ai-sdk/google, Gemini API)',
  adapterVersion: '1.0.0',
  envVars: ['GOOGLE_API_KEY'],
  optionalEnvVars: ['GEMINI_BASE_URL'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: true,
    multimodal_input: true,
  },
  defaultModel: 'gemini-2.5-flash',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level Gemini generateContent stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'Google Gemini API (API key)',
  create(env, model, opts) {
    const [apiKey] = requireEnv('gemini', env, ['GOOGLE_API_KEY']);
    return createGeminiProvider({ apiKey, model, baseURL: envValue(env, 'GEMINI_BASE_URL'), ...opts });
  },
  prices: {
    'gemini-2.5-pro': { input_per_million: 1.25, output_per_million: 10 },
    'gemini-2.5-flash': { input_per_million: 0.3, output_per_million: 2.5 },
  },
};
registerPrices(geminiEntry);
