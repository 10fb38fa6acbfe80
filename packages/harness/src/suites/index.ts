export * from './hash.js';
export * from './interpolate.js';
export * from './loader.js';
export * from './positions.js';
export * from './schema.js';
export * from './sources.js';
