export * from './live.js';
export * from './server.js';
