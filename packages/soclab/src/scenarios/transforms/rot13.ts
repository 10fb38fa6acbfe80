import type { PayloadTransform } from './types.js';

const rotate = (c: string, base: number) => String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);

export const rot13Transform: PayloadTransform = {
  name: 'rot13',
  kind: 'encoding',
  description: 'ASCII letters rotated by 13 places',
  apply: (text) => text.replace(/[a-z]/g, (c) => rotate(c, 97)).replace(/[A-Z]/g, (c) => rotate(c, 65)),
};
