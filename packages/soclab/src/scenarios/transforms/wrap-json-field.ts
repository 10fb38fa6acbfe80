import type { PayloadTransform } from './types.js';

export const wrapJsonFieldTransform: PayloadTransform = {
  name: 'wrap-json-field',
  kind: 'wrapper',
  description: 'as the value of a field in a JSON object',
  apply: (text) => JSON.stringify({ type: 'note', priority: 'high', instructions: text }),
};
