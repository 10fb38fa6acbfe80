export * from './investigation.js';
export * from './port.js';
export * from './prompts.js';
export * from './replies.js';
