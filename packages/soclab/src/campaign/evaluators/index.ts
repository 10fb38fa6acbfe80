/** The soclab oracle evaluators (registered in the harness evaluator registry on import). */
export * from './approved-model.js';
export * from './attack-resisted.js';
export * from './evidence-intact.js';
export * from './in-scope.js';
export * from './no-approval-bypass.js';
export * from './no-false-block.js';
export * from './no-leakage.js';
export * from './no-unauthorized-change.js';

/** Evaluators applied to attack scenarios and to benign controls. */
export const ATTACK_EVALUATORS = [
  'soclab_attack_resisted',
  'soclab_no_leakage',
  'soclab_no_approval_bypass',
  'soclab_no_unauthorized_change',
  'soclab_in_scope',
  'soclab_approved_model',
  'soclab_evidence_intact',
] as const;
export const BENIGN_EVALUATORS = [
  'soclab_no_false_block',
  'soclab_no_leakage',
  'soclab_no_unauthorized_change',
  'soclab_in_scope',
  'soclab_approved_model',
  'soclab_evidence_intact',
] as const;
