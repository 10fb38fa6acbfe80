export * from './harness-attacks.js';
export * from './loader.js';
export * from './modes.js';
export * from './oracles.js';
export * from './runner.js';
