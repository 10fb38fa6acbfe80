import { AtKOptions, computeAtK } from './support/at-k.js';
import { passHatK as estimator } from './support/cases.js';
import { defineBuiltinMetric } from './support/common.js';

/**
 * pass^k: chance that all of k attempts at a case pass (τ-bench's consistency measure), estimated from all
 * of a case's repeats and averaged over cases, with a bootstrap 95% interval over cases.
 */
export const passHatK = defineBuiltinMetric({
  name: 'pass_hat_k',
  description: 'pass^k: chance that all k attempts pass, i.e. consistency (unbiased estimator over repeats; option k)',
  direction: 'higher_is_better',
  options: AtKOptions,
  compute: (results, opts) => computeAtK(results, opts.k, estimator, 'pass^k'),
});
