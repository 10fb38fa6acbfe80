export const SOCLAB_VERSION = '0.1.0';
export * from './contracts/index.js';
