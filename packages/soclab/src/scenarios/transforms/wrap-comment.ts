import type { PayloadTransform } from './types.js';

/** Hidden in a comment a renderer would not show. */
export const htmlCommentTransform: PayloadTransform = {
  name: 'wrap-html-comment',
  kind: 'wrapper',
  description: 'inside an HTML comment',
  apply: (text) => `<!-- ${text.replaceAll('--', '- -')} -->`,
};

export const markdownCommentTransform: PayloadTransform = {
  name: 'wrap-markdown-comment',
  kind: 'wrapper',
  description: 'inside a Markdown link-reference comment',
  apply: (text) => `[//]: # (${text.replaceAll(')', ']')} )`,
};
