/**
 * Modes: what a scenario run is wired to (baseline's direct port or the protected control plane) and the
 * run-level attacks each carries out. `builtin.ts` registers the control plane's modes; `ablation-modes.ts` the
 * "protected minus one control" ones used by ablation studies.
 */
export * from './baseline.js';
export * from './baseline-port.js';
export * from './mode.js';
export * from './protected-session.js';
export * from './registry.js';
export * from './run-attacks.js';
