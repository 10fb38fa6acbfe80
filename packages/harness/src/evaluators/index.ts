/** Built-in evaluators: importing this module registers every one of them (one file each). */
export * from './base.js';
export * from './contains.js';
export * from './exact-match.js';
export * from './json-match.js';
export * from './regex-match.js';
export * from './tool-usage.js';
