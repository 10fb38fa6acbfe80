// Public API of @aeh/models: the provider contract, the registry, the vendor clients and the helpers a custom
// provider is written with. Listed by name so the surface changes only on purpose (see the API-surface test).
export { BUILTIN_PROVIDER_ENTRIES, defaultProviderRegistry } from './default-registry.js';
// The provider contract every model client implements, its request/response shapes and errors.
export {
  CapabilityUnsupportedError,
  FinishReason,
  Identifier,
  MalformedResponseError,
  Message,
  type MessageInput,
  type ModelProvider,
  ModelRequest,
  type ModelRequestInput,
  ModelResponse,
  ModelUsage,
  ProviderCapabilities,
  ProviderError,
  type ProviderErrorOptions,
  ToolCall,
  ToolSpec,
  TrustLabel,
  type UnusableReply,
} from './provider.js';
// Vendor clients; each also has a registry entry (`<vendor>Entry`).
export type { FetchFunction, VendorAdapterOptions } from './providers/ai-sdk.js';
export { type AnthropicProviderOptions, anthropicEntry, createAnthropicProvider } from './providers/anthropic.js';
export {
  AZURE_OPENAI_DEFAULT_API_VERSION,
  type AzureOpenAIProviderOptions,
  azureOpenAIEntry,
  createAzureOpenAIProvider,
} from './providers/azure-openai.js';
export { createGeminiProvider, type GeminiProviderOptions, geminiEntry } from './providers/gemini.js';
// The scripted mock: deterministic replies for tests and CI.
export {
  createMockProvider,
  type MockCall,
  type MockCallInfo,
  type MockMatcher,
  type MockMethod,
  MockProvider,
  type MockProviderOptions,
  MockReply,
  type MockReplySource,
  type MockRule,
  MockScript,
  mockEntry,
} from './providers/mock.js';
export {
  createOllamaProvider,
  OLLAMA_DEFAULT_BASE_URL,
  type OllamaProviderOptions,
  ollamaEntry,
} from './providers/ollama.js';
export { createOpenAIProvider, type OpenAIProviderOptions, openaiEntry } from './providers/openai.js';
export {
  createOpenAICompatibleProvider,
  type OpenAICompatibleProviderOptions,
  openAICompatibleEntry,
} from './providers/openai-compatible.js';
export { createVertexProvider, type VertexProviderOptions, vertexEntry } from './providers/vertex.js';
export { createXaiProvider, XAI_BASE_URL, type XaiProviderOptions, xaiEntry } from './providers/xai.js';
// Looking providers up by id: capabilities, required environment, approval, did-you-mean.
export {
  CompatibilityResult,
  type CreateOptions,
  type Env,
  nearestName,
  type ProviderEntry,
  ProviderRegistry,
  type ProviderRegistryOptions,
  ValidationLevel,
} from './registry.js';
// Helpers for writing your own provider (docs/custom-provider.md).
export { envValue, requireEnv } from './shared/env.js';
export {
  type ChatMessage,
  labelMessage,
  openAIStyleMessages,
  openAIStyleTools,
  withToolResult,
} from './shared/messages.js';
export { parseStructured, parseToolArguments, stripCodeFence } from './shared/parse.js';
export { estimateCostUsd, type ModelPrice, PRICE_TABLE, registerPrices } from './shared/pricing.js';
export { type BuildResponseInput, buildResponse } from './shared/response.js';
export { Timer, timed } from './shared/timer.js';
export { estimateCallUsage, estimateRequestUsage, estimateTokens } from './shared/tokens.js';
