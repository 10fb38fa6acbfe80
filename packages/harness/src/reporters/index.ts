/** Built-in reporters: importing this module registers every one of them (one file each). */
export * from './base.js';
export * from './console.js';
export * from './json.js';
