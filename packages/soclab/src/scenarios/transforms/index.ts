import { errorMessage } from '@aeh/harness/errors';
import { base64Transform } from './base64.js';
import { hexTransform } from './hex.js';
import { homoglyphsTransform } from './homoglyphs.js';
import { languageTransforms } from './languages.js';
import { rot13Transform } from './rot13.js';
import { splitTransform } from './split.js';
import type { PayloadTransform } from './types.js';
import { unicodeTagsTransform } from './unicode-tags.js';
import { htmlCommentTransform, markdownCommentTransform } from './wrap-comment.js';
import { wrapJsonFieldTransform } from './wrap-json-field.js';
import { wrapSystemTransform } from './wrap-system.js';
import { wrapToolResultTransform } from './wrap-tool-result.js';
import { zeroWidthTransform } from './zero-width.js';

export type { PayloadTransform } from './types.js';

const registry = new Map<string, PayloadTransform>();

/** Register a transform under its name; a second one with the same name is an error. */
export function registerTransform(transform: PayloadTransform): void {
  if (registry.has(transform.name)) throw new Error(`transform '${transform.name}' is already registered`);
  registry.set(transform.name, transform);
}

for (const t of [
  base64Transform,
  hexTransform,
  rot13Transform,
  unicodeTagsTransform,
  homoglyphsTransform,
  zeroWidthTransform,
  ...languageTransforms,
  wrapSystemTransform,
  wrapToolResultTransform,
  htmlCommentTransform,
  markdownCommentTransform,
  wrapJsonFieldTransform,
  splitTransform,
]) {
  registerTransform(t);
}

export const transformNames = (): string[] => [...registry.keys()].sort();
export const getTransform = (name: string): PayloadTransform | null => registry.get(name) ?? null;

/**
 * Apply a chain left to right. Text transforms after a split apply to each part. The result has one text per
 * plant: without a split every plant gets the same text; a split needs as many plants as parts.
 */
export function applyTransformChain(text: string, chain: readonly string[], plants: number): string[] {
  let parts = [text];
  for (const name of chain) {
    const t = registry.get(name);
    if (!t) throw new Error(`unknown transform '${name}'; known: ${transformNames().join(', ')}`);
    parts = parts.flatMap((p) => {
      const out = t.apply(p);
      return typeof out === 'string' ? [out] : [...out];
    });
  }
  if (parts.length > 1 && parts.length > plants) {
    throw new Error(
      `the chain ${chain.join(' > ')} makes ${parts.length} parts but the payload has ${plants} plant(s)`,
    );
  }
  const [only] = parts;
  return parts.length === 1 && only !== undefined ? Array.from({ length: Math.max(plants, 1) }, () => only) : parts;
}

/** Check a chain without a text: unknown names and splits that need more plants than there are. */
export function checkTransformChain(chain: readonly string[], plants: number): string | null {
  try {
    applyTransformChain('check the chain on this sample text', chain, plants);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}
