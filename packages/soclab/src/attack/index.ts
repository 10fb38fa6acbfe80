export { type AttackGoal, attackGoals, type Candidate, candidatesFor, placements, TEMPLATES } from './candidates.js';
export { llmVariants, VARIANT_STAGE } from './llm-variants.js';
export { type Observation, observe, stoppedBy } from './observe.js';
export {
  type AttackOptions,
  type AttackReport,
  type CurvePoint,
  type GoalResult,
  runAdaptiveAttack,
  type TryRecord,
} from './search.js';
