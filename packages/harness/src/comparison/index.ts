export * from './collect.js';
export * from './comparator.js';
export * from './gate.js';
export * from './models.js';
export * from './regression.js';
export * from './render-console.js';
export * from './render-markdown.js';
