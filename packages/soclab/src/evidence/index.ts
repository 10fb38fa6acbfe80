export * from './database.js';
export * from './hash-chain.js';
export * from './store.js';
