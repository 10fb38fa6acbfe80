import type { PayloadTransform } from './types.js';

export const base64Transform: PayloadTransform = {
  name: 'base64',
  kind: 'encoding',
  description: 'the text as base64 (UTF-8)',
  apply: (text) => Buffer.from(text, 'utf8').toString('base64'),
};
