/** A model's list price, USD per million tokens, for cost ESTIMATION (every cost computed from it is labelled estimated). */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
}

const table: Record<string, ModelPrice> = {};

/**
 * Every price the built-in providers declare, by model id. The prices live in each provider's entry
 * (`ProviderEntry.prices`, placeholders taken from public list prices at one point in time); each provider module
 * adds its own here when it loads, so a new provider file brings its prices without an edit to this one. Vendors
 * that report cost win.
 */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = table;

/** Add a provider entry's prices to PRICE_TABLE (a model priced by two providers keeps the first price). */
export function registerPrices(entry: { readonly prices?: Readonly<Record<string, ModelPrice>> }): void {
  for (const [model, price] of Object.entries(entry.prices ?? {})) {
    if (!Object.hasOwn(table, model)) table[model] = Object.freeze({ ...price });
  }
}

/**
 * Estimated cost in USD rounded to 6 decimals, or null when the model is not in the table (unknown cost is not
 * zero cost). `table` lets callers add their own prices.
 */
export function estimateCostUsd(
  model: string,
  usage: { input_tokens: number; output_tokens: number },
  table: Readonly<Record<string, ModelPrice>> = PRICE_TABLE,
): number | null {
  // Dated snapshots (gpt-4o-mini-2024-07-18) fall back to the undated family price; an alias (`claude-sonnet-4-0`,
  // `…-latest`) takes the price of its dated id when the table has exactly one.
  const undated = model.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
  const alias = /^(.+)-(?:latest|0)$/.exec(model)?.[1];
  const dated = alias
    ? Object.keys(table).filter(
        (k) => k.startsWith(alias) && /^-(\d{4}-\d{2}-\d{2}|\d{8})$/.test(k.slice(alias.length)),
      )
    : [];
  const key = Object.hasOwn(table, model)
    ? model
    : Object.hasOwn(table, undated)
      ? undated
      : dated.length === 1
        ? dated[0]
        : undefined;
  const price = key === undefined ? undefined : table[key];
  if (!price) return null;
  const raw = (usage.input_tokens * price.input_per_million + usage.output_tokens * price.output_per_million) / 1e6;
  return Math.round(raw * 1e6) / 1e6;
}
