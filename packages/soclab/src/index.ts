export const SOCLAB_VERSION = '0.1.0';
export * from './contracts/index.js';
export * from './control/baseline-port.js';
export * from './control/redaction.js';
export * from './evidence/index.js';
export * from './orchestrator/index.js';
export * from './providers/mock.js';
export * from './scenarios/index.js';
export * from './simulator/index.js';
