import type { PayloadTransform } from './types.js';

/** Latin letters with a Cyrillic twin that renders the same in most fonts. */
const TWINS: Readonly<Record<string, string>> = {
  a: '\u0430',
  c: '\u0441',
  e: '\u0435',
  o: '\u043e',
  p: '\u0440',
  x: '\u0445',
  y: '\u0443',
  A: '\u0410',
  C: '\u0421',
  E: '\u0415',
  O: '\u041e',
  P: '\u0420',
};

export const homoglyphsTransform: PayloadTransform = {
  name: 'homoglyphs',
  kind: 'encoding',
  description: 'Latin a, c, e, o, p, x, y replaced by their Cyrillic lookalikes',
  apply: (text) => [...text].map((c) => TWINS[c] ?? c).join(''),
};
