export * from './default-registry.js';
export * from './provider.js';
export * from './providers/index.js';
export * from './registry.js';
export * from './shared/index.js';
