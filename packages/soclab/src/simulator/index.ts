export * from './directory.js';
export * from './errors.js';
export * from './fixture.js';
export * from './state.js';
export * from './tools.js';
