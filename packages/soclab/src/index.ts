import { soclabVersion } from './version.js';

/** The package version, read from package.json (the one source). */
export const SOCLAB_VERSION = soclabVersion();
export * from './contracts/index.js';
export * from './modes/index.js';
export * from './control/index.js';
export * from './control/redaction.js';
export * from './evidence/index.js';
export * from './orchestrator/index.js';
export * from './providers/mock.js';
export * from './scenarios/index.js';
export * from './simulator/index.js';
