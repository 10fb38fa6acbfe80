export * from './provider.js';
export * from './providers/mock.js';
export * from './shared/index.js';
