import { anthropicEntry } from './providers/anthropic.js';
import { azureOpenAIEntry } from './providers/azure-openai.js';
import { geminiEntry } from './providers/gemini.js';
import { mockEntry } from './providers/mock.js';
import { ollamaEntry } from './providers/ollama.js';
import { openaiEntry } from './providers/openai.js';
import { openAICompatibleEntry } from './providers/openai-compatible.js';
import { vertexEntry } from './providers/vertex.js';
import { xaiEntry } from './providers/xai.js';
import { type ProviderEntry, ProviderRegistry, type ProviderRegistryOptions } from './registry.js';

/** Every provider this package ships, in listing order. */
export const BUILTIN_PROVIDER_ENTRIES: readonly ProviderEntry[] = Object.freeze([
  mockEntry,
  openaiEntry,
  azureOpenAIEntry,
  anthropicEntry,
  geminiEntry,
  vertexEntry,
  xaiEntry,
  ollamaEntry,
  openAICompatibleEntry,
]);

/**
 * A registry with the built-in providers plus `extra` entries (an extra entry with a built-in id replaces it,
 * keeping its position).
 */
export function defaultProviderRegistry(
  options: ProviderRegistryOptions = {},
  extra: Iterable<ProviderEntry> = [],
): ProviderRegistry {
  return new ProviderRegistry([...BUILTIN_PROVIDER_ENTRIES, ...extra], options);
}
