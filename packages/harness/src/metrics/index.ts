/** Built-in metrics: importing this module registers every one of them (one file each). */
export * from './accuracy.js';
export * from './base.js';
export * from './cost.js';
export * from './error-rate.js';
export * from './latency.js';
export * from './reliability.js';
export * from './success-rate.js';
