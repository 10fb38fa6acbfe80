import type { LanguageModelV3 } from '@ai-sdk/provider';
import {
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ProviderCapabilities,
  ProviderError,
} from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { estimateRequestUsage } from '../shared/tokens.js';
import type { VendorAdapterOptions, VendorProfile } from './ai-sdk.js';

/** Default per-call timeout of a hosted vendor API. */
export const DEFAULT_VENDOR_TIMEOUT_MS = 60_000;

/**
 * What one vendor adapter file declares. The model id, timeout and provider id default from the caller's options
 * and the vendor's registry entry; `load` builds the AI SDK model and is called on the first request only, so the
 * vendor SDK is imported lazily (it costs ~0.2 s). The shared engine (ai-sdk.ts and `@ai-sdk/provider`) loads on the
 * first request too, so a process that lists or checks providers, or runs only the mock, never evaluates it.
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
  return new LazyVendorProvider({
    ...profile,
    providerId: providerId ?? entry.id,
    model,
    languageModel: () => load(model),
    capabilities: capabilities ?? entry.capabilities,
    timeoutMs: options.timeoutMs ?? DEFAULT_VENDOR_TIMEOUT_MS,
  });
}

/**
 * A vendor's ModelProvider that answers what it is (id, model, capabilities, usage estimate) at once and imports
 * the engine that calls the API (AiSdkProvider) on its first call: `create` stays synchronous, and a command that
 * builds no vendor provider, or builds one and never calls it, pays nothing for the AI SDK (issue 22).
 */
class LazyVendorProvider implements ModelProvider {
  readonly providerId: string;
  readonly model: string;
  readonly #profile: VendorProfile;
  #engine: Promise<ModelProvider> | undefined;

  constructor(profile: VendorProfile) {
    this.#profile = profile;
    this.providerId = profile.providerId;
    this.model = profile.model;
  }

  /** The engine, imported and built once; a failed import is retried by the next call. */
  #load(): Promise<ModelProvider> {
    this.#engine ??= import('./ai-sdk.js').then(
      ({ AiSdkProvider }) => new AiSdkProvider(this.#profile),
      (error: unknown) => {
        this.#engine = undefined;
        throw error;
      },
    );
    return this.#engine;
  }

  describeCapabilities(): ProviderCapabilities {
    return { ...this.#profile.capabilities };
  }

  countUsage(request: ModelRequest): ModelUsage {
    return estimateRequestUsage(request);
  }

  async generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return (await this.#load()).generate(request, signal);
  }

  async generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return (await this.#load()).generateStructured(request, signal);
  }

  async requestTool(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return (await this.#load()).requestTool(request, signal);
  }

  async continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    return (await this.#load()).continueAfterTool(request, toolName, toolResult, signal);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<string> {
    yield* (await this.#load()).stream(request, signal);
  }
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
