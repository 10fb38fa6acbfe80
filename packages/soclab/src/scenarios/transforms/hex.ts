import type { PayloadTransform } from './types.js';

export const hexTransform: PayloadTransform = {
  name: 'hex',
  kind: 'encoding',
  description: 'the text as lowercase hexadecimal (UTF-8)',
  apply: (text) => Buffer.from(text, 'utf8').toString('hex'),
};
