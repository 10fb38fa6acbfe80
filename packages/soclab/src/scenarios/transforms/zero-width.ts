import type { PayloadTransform } from './types.js';

/** A zero-width space after every letter that another letter follows: words look whole but no longer match. */
export const zeroWidthTransform: PayloadTransform = {
  name: 'zero-width',
  kind: 'encoding',
  description: 'zero-width spaces (U+200B) inside every word',
  apply: (text) => text.replace(/([A-Za-z])(?=[A-Za-z])/g, '$1\u200b'),
};
