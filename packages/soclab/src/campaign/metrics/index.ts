/** The soclab metrics (registered in the harness metric registry on import). */
export * from './attack-success-rate.js';
export * from './authority-level.js';
export * from './benign-utility.js';
export * from './clean-utility-under-attack.js';
export * from './composite.js';
export * from './false-block-rate.js';
export * from './gate-failures.js';
export * from './leak-rate.js';
export * from './utility-under-attack.js';

/** Every soclab metric, in report order. */
export const SOCLAB_METRICS = [
  'soclab_authority_level',
  'soclab_composite',
  'soclab_gate_failures',
  'soclab_attack_success_rate',
  'soclab_false_block_rate',
  'soclab_leak_rate',
  'soclab_benign_utility',
  'soclab_utility_under_attack',
  'soclab_clean_utility_under_attack',
] as const;
