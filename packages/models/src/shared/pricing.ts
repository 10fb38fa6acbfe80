/**
 * Price table for cost ESTIMATION, USD per million tokens. These are placeholders taken from public list prices
 * at one point in time; every cost computed from them is labelled estimated. Vendors that report cost win.
 */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
}

export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4o': { input_per_million: 2.5, output_per_million: 10 },
  'gpt-4o-mini': { input_per_million: 0.15, output_per_million: 0.6 },
  'claude-sonnet-4-20250514': { input_per_million: 3, output_per_million: 15 },
  'claude-haiku-4-5-20251001': { input_per_million: 1, output_per_million: 5 },
  'gemini-2.5-pro': { input_per_million: 1.25, output_per_million: 10 },
  'gemini-2.5-flash': { input_per_million: 0.3, output_per_million: 2.5 },
  'grok-4': { input_per_million: 3, output_per_million: 15 },
});

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
