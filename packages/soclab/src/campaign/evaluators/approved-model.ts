import { defineOracleEvaluator } from './support.js';

/** No tool ran on behalf of a model that is not on the approved list. */
export const approvedModel = defineOracleEvaluator({
  name: 'soclab_approved_model',
  description: 'Passes when no tool ran for an unapproved (provider, model) pair',
  judge: (r) =>
    r.outcome.unapproved_model_used
      ? { passed: false, explanation: `tools ran for unapproved model ${r.outcome.provider}/${r.outcome.model}` }
      : { passed: true, explanation: `model ${r.outcome.provider}/${r.outcome.model} approved (or nothing ran)` },
});
