export * from './loader.js';
export * from './oracles.js';
export * from './runner.js';
