/** The control plane's public surface: gateway, policy engine, approvals, grants and executor (modes: ../modes/). */
export * from './ablation-switches.js';
export * from './approval-inbox.js';
export * from './approvals.js';
export * from './approver.js';
export * from './decision-log.js';
export * from './executor.js';
export * from './gateway.js';
export * from './grants.js';
export * from './policy/index.js';
export * from './tool-registry.js';
