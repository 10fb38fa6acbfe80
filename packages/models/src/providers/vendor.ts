import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type ModelProvider, type ProviderCapabilities, ProviderError } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { AiSdkProvider, type VendorAdapterOptions, type VendorProfile } from './ai-sdk.js';

/** Default per-call timeout of a hosted vendor API. */
export const DEFAULT_VENDOR_TIMEOUT_MS = 60_000;

/**
 * What one vendor adapter file declares. The model id, timeout and provider id default from the caller's options
 * and the vendor's registry entry; `load` builds the AI SDK model and is called on the first request only, so the
 * vendor SDK is imported lazily (it costs ~0.2 s).
 */
export interface VendorDefinition
  extends Omit<VendorProfile, 'providerId' | 'model' | 'languageModel' | 'capabilities' | 'timeoutMs'> {
  entry: Pick<ProviderEntry, 'id' | 'defaultModel' | 'capabilities'>;
  /** Reported provider id when an adapter is reused under another name (vertex, xai, ollama). */
  providerId?: string;
  capabilities?: ProviderCapabilities;
  /** Imports the vendor SDK and returns the language model for `model`. */
  load: (model: string) => Promise<LanguageModelV3>;
}

/** Builds the ModelProvider of one vendor from the caller's options and the vendor's definition. */
export function createVendorProvider(options: VendorAdapterOptions, definition: VendorDefinition): ModelProvider {
  const { entry, providerId, capabilities, load, ...profile } = definition;
  const model = options.model ?? entry.defaultModel;
  return new AiSdkProvider({
    ...profile,
    providerId: providerId ?? entry.id,
    model,
    languageModel: () => load(model),
    capabilities: capabilities ?? entry.capabilities,
    timeoutMs: options.timeoutMs ?? DEFAULT_VENDOR_TIMEOUT_MS,
  });
}

/** Parses an absolute http(s) URL or throws a ProviderError with `message`. */
export function absoluteHttpUrl(value: string, message: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderError(message);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProviderError(message);
  return url;
}
