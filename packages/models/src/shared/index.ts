export * from './env.js';
export * from './messages.js';
export * from './parse.js';
export * from './pricing.js';
export * from './response.js';
export * from './timer.js';
export * from './tokens.js';
