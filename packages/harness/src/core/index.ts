export * from './agent.js';
export * from './colour.js';
export * from './durations.js';
export * from './experiment.js';
export * from './result.js';
export * from './testcase.js';
