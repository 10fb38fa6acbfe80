import type { ModelProvider } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue, requireEnv } from '../shared/env.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { absoluteHttpUrl, createVendorProvider } from './vendor.js';

export const AZURE_OPENAI_DEFAULT_API_VERSION = '2024-10-21';

export interface AzureOpenAIProviderOptions extends VendorAdapterOptions {
  apiKey: string;
  /** Resource endpoint, e.g. https://my-resource.openai.azure.com */
  endpoint: string;
  /** Defaults to 2024-10-21. */
  apiVersion?: string;
  /**
   * The deployment name in the URL (default: the model). Azure deployments are named by the customer, so the
   * model (what is approved, priced and recorded) and the deployment are separate settings.
   */
  deployment?: string;
}

/**
 * Azure OpenAI: requests go to `<endpoint>/openai/deployments/<deployment>/chat/completions?api-version=<v>` with an
 * `api-key` header. The deployment defaults to the model name; set it separately when they differ.
 */
export function createAzureOpenAIProvider(options: AzureOpenAIProviderOptions): ModelProvider {
  const endpoint = absoluteHttpUrl(options.endpoint, 'AZURE_OPENAI_ENDPOINT must be an absolute https URL');
  const base = `${endpoint.origin}${endpoint.pathname.replace(/\/+$/, '')}`;
  return createVendorProvider(options, {
    entry: azureOpenAIEntry,
    load: async (model) => {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const azure = createOpenAICompatible({
        name: 'azure_openai',
        baseURL: `${base}/openai/deployments/${encodeURIComponent(options.deployment?.trim() || model)}`,
        headers: { 'api-key': options.apiKey },
        queryParams: { 'api-version': options.apiVersion ?? AZURE_OPENAI_DEFAULT_API_VERSION },
        includeUsage: true,
        fetch: options.fetch,
      });
      return azure.chatModel(model);
    },
    structuredMode: 'response_format',
    jsonModeOnlyWithoutTools: false,
    schemaInResponseFormat: false,
    alternateRoles: false,
    modelFromResponse: true,
    secrets: [options.apiKey],
  });
}

export const azureOpenAIEntry: ProviderEntry = {
  id: 'azure_openai',
  adapter: 'createAzureOpenAIProvider (AI SDK @ai-sdk/openai-compatible, deployments API)',
  adapterVersion: '1.0.0',
  envVars: ['AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_ENDPOINT'],
  optionalEnvVars: ['AZURE_OPENAI_API_VERSION', 'AZURE_OPENAI_DEPLOYMENT'],
  regionEnvVar: 'AZURE_OPENAI_ENDPOINT',
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
    'end-to-end against a wire-level Azure OpenAI deployments (Chat Completions) stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'Azure OpenAI Service (deployment: --deployment or AZURE_OPENAI_DEPLOYMENT, default the model name)',
  create(env, model, opts) {
    const [apiKey, endpoint] = requireEnv('azure_openai', env, ['AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_ENDPOINT']);
    return createAzureOpenAIProvider({
      apiKey,
      endpoint,
      apiVersion: envValue(env, 'AZURE_OPENAI_API_VERSION'),
      model,
      ...opts,
      deployment: opts?.deployment ?? envValue(env, 'AZURE_OPENAI_DEPLOYMENT'),
    });
  },
};
