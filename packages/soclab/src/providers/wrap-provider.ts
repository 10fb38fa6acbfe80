import type { ModelProvider } from '@aeh/models';

/** The calls of a provider a wrapper may replace (its identity, `providerId` and `model`, always stays the inner's;
 * an inner `close` is forwarded). */
export type ProviderOverrides = Partial<Omit<ModelProvider, 'providerId' | 'model'>>;

/**
 * A provider that is `provider` except for the calls in `overrides`: every other call is delegated as is, so a
 * wrapper states only what it changes.
 *
 * @example
 * const shouting = wrapProvider(provider, {
 *   generate: (request, signal) => provider.generate({ ...request, system_prompt: request.system_prompt.toUpperCase() }, signal),
 * });
 */
export function wrapProvider(provider: ModelProvider, overrides: ProviderOverrides): ModelProvider {
  // `close` is optional and outside the ModelProvider contract (http agents keep a connection pool): forwarded when
  // the inner provider has one, so wrapping never leaks what the inner would have released.
  const inner = provider as ModelProvider & { close?: () => Promise<void> };
  const closing = inner.close ? { close: () => inner.close?.() ?? Promise.resolve() } : {};
  return {
    ...closing,
    get providerId() {
      return provider.providerId;
    },
    get model() {
      return provider.model;
    },
    describeCapabilities: overrides.describeCapabilities ?? (() => provider.describeCapabilities()),
    countUsage: overrides.countUsage ?? ((request) => provider.countUsage(request)),
    generate: overrides.generate ?? ((request, signal) => provider.generate(request, signal)),
    generateStructured:
      overrides.generateStructured ?? ((request, signal) => provider.generateStructured(request, signal)),
    requestTool: overrides.requestTool ?? ((request, signal) => provider.requestTool(request, signal)),
    continueAfterTool:
      overrides.continueAfterTool ??
      ((request, toolName, toolResult, signal) => provider.continueAfterTool(request, toolName, toolResult, signal)),
    stream: overrides.stream ?? ((request, signal) => provider.stream(request, signal)),
  };
}
