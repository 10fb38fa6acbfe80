import { AtKOptions, computeAtK } from './support/at-k.js';
import { passAtK as estimator } from './support/cases.js';
import { defineBuiltinMetric } from './support/common.js';

/**
 * pass@k: chance that at least one of k attempts at a case passes, estimated without bias from all of a
 * case's repeats (Chen et al. 2021) and averaged over cases, with a bootstrap 95% interval over cases.
 */
export const passAtK = defineBuiltinMetric({
  name: 'pass_at_k',
  description: 'pass@k: chance that at least one of k attempts passes (unbiased estimator over repeats; option k)',
  direction: 'higher_is_better',
  options: AtKOptions,
  compute: (results, opts) => computeAtK(results, opts.k, estimator, 'pass@k'),
});
