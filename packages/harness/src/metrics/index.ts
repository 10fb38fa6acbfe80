/** Built-in metrics: importing this module registers every one of them (one file each). */
export * from './accuracy.js';
export * from './base.js';
export * from './cost.js';
export * from './cost-per-case.js';
export * from './error-rate.js';
export * from './flaky-cases.js';
export * from './judge-agreement.js';
export * from './latency.js';
export * from './p50-latency.js';
export * from './p95-latency.js';
export * from './p99-latency.js';
export * from './pass-at-k.js';
export * from './pass-hat-k.js';
export * from './reliability.js';
export * from './success-rate.js';
export * from './token-efficiency.js';
export * from './tokens.js';
