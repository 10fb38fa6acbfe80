export * from './environment.js';
export * from './journal.js';
export * from './retry.js';
export * from './run-folder.js';
export * from './runner.js';
export * from './scheduler.js';
export * from './slim.js';
export * from './thresholds.js';
