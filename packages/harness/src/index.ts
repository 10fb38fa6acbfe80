export * from './adapters/base.js';
export * from './core/index.js';
export * from './evaluators/base.js';
export * from './metrics/base.js';
export * from './plugins/registry.js';
export * from './reporters/base.js';
