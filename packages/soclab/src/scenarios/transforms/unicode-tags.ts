import type { PayloadTransform } from './types.js';

/** Printable ASCII moved to the invisible Unicode tag block (U+E0020..U+E007E); other characters stay. */
export const unicodeTagsTransform: PayloadTransform = {
  name: 'unicode-tags',
  kind: 'encoding',
  description: 'printable ASCII as invisible Unicode tag characters (U+E0000 block)',
  apply: (text) =>
    [...text].map((c) => (c >= ' ' && c <= '~' ? String.fromCodePoint(0xe0000 + c.charCodeAt(0)) : c)).join(''),
};
