export * from './campaign.js';
export * from './canonical.js';
export * from './common.js';
export * from './enums.js';
export * from './events.js';
export * from './models.js';
export * from './scenarios.js';
export * from './tools.js';
