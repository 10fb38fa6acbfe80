/** Built-in reporters: importing this module registers every one of them (one file each). */
export * from './base.js';
export * from './console.js';
export * from './csv.js';
export * from './html.js';
export * from './json.js';
export * from './jsonl.js';
export * from './junit.js';
export * from './markdown.js';
