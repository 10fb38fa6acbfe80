import { type ModelProvider, ProviderError } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { envValue } from '../shared/env.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createOpenAICompatibleProvider } from './openai-compatible.js';

export const OLLAMA_DEFAULT_BASE_URL = 'http://localhost:11434';

export interface OllamaProviderOptions extends VendorAdapterOptions {
  /** Ollama server, default http://localhost:11434 (the adapter talks to its OpenAI-compatible `/v1`). */
  baseURL?: string;
}

/** A local Ollama model. Cost is 0 (labelled estimated: your hardware is not free, but nothing is billed). */
export function createOllamaProvider(options: OllamaProviderOptions = {}): ModelProvider {
  const base = (options.baseURL ?? OLLAMA_DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(base)) throw new ProviderError('OLLAMA_BASE_URL must be an absolute http(s) URL');
  return createOpenAICompatibleProvider({
    providerId: 'ollama',
    baseURL: base.endsWith('/v1') ? base : `${base}/v1`,
    model: options.model ?? ollamaEntry.defaultModel,
    capabilities: ollamaEntry.capabilities,
    timeoutMs: options.timeoutMs ?? 120_000,
    fixedCostUsd: 0,
    fetch: options.fetch,
  });
}

export const ollamaEntry: ProviderEntry = {
  id: 'ollama',
  adapter: 'createOllamaProvider (AI SDK @ai-sdk/openai-compatible, Ollama /v1)',
  adapterVersion: '1.0.0',
  envVars: [],
  optionalEnvVars: ['OLLAMA_BASE_URL'],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: true,
    usage_reporting: true,
    multimodal_input: false,
  },
  defaultModel: 'llama3.2:3b',
  validationLevel: 'end-to-end',
  validation:
    'end-to-end against a wire-level Ollama OpenAI-compatible stand-in (campaigns in both modes, in CI) and contract-tested against recorded fixtures; not live-validated',
  description: 'Local models served by Ollama (no credentials; default http://localhost:11434)',
  notes: ['tool calling and JSON mode depend on the local model; small models often fail structured stages'],
  create(env, model, opts) {
    return createOllamaProvider({ baseURL: envValue(env, 'OLLAMA_BASE_URL'), model, ...opts });
  },
};
