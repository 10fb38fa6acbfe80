import type { PayloadTransform } from './types.js';

/** Two halves cut at the space nearest the middle, for two plants (fields) that a reader puts together. */
export const splitTransform: PayloadTransform = {
  name: 'split',
  kind: 'split',
  description: 'the text cut in two at the space nearest its middle, one half per plant',
  apply: (text) => {
    const middle = Math.floor(text.length / 2);
    let cut = -1;
    for (let d = 0; d <= middle; d++) {
      if (text[middle - d] === ' ') {
        cut = middle - d;
        break;
      }
      if (text[middle + d] === ' ') {
        cut = middle + d;
        break;
      }
    }
    if (cut <= 0) cut = middle;
    return [text.slice(0, cut), text.slice(cut)];
  },
};
