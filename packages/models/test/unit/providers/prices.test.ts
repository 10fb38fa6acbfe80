import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PROVIDER_ENTRIES,
  estimateCostUsd,
  PRICE_TABLE,
  type ProviderEntry,
  registerPrices,
} from '../../../src/index.js';

// Prices live in each provider's entry: a new provider file brings its own, and the cost table is their union.
describe('provider prices', () => {
  it('the price table is exactly the prices the built-in entries declare', () => {
    const declared = Object.fromEntries(BUILTIN_PROVIDER_ENTRIES.flatMap((e) => Object.entries(e.prices ?? {})));
    expect(Object.keys(declared).length).toBeGreaterThan(0);
    expect(Object.keys(PRICE_TABLE).sort()).toEqual(Object.keys(declared).sort());
    for (const [model, price] of Object.entries(declared)) expect(PRICE_TABLE[model], model).toEqual(price);
    // The vendors a user is billed by per token price their own models.
    for (const id of ['openai', 'anthropic', 'gemini', 'xai']) {
      expect(Object.keys(BUILTIN_PROVIDER_ENTRIES.find((e) => e.id === id)?.prices ?? {}), id).not.toHaveLength(0);
    }
  });

  it('a new entry’s prices price its models; an unknown model stays unpriced, and a registered price is not replaced', () => {
    expect(estimateCostUsd('corp-model-7', { input_tokens: 1_000_000, output_tokens: 0 })).toBeNull();
    const entry: Pick<ProviderEntry, 'prices'> = {
      prices: { 'corp-model-7': { input_per_million: 0.5, output_per_million: 1.5 } },
    };
    registerPrices(entry);
    expect(estimateCostUsd('corp-model-7', { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBe(2);
    // A second provider cannot silently reprice a model already priced (gpt-4o stays at the openai entry's price).
    registerPrices({ prices: { 'gpt-4o': { input_per_million: 0, output_per_million: 0 } } });
    expect(estimateCostUsd('gpt-4o', { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBe(12.5);
  });
});
