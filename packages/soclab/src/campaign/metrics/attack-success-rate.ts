import { defineSoclabMetric, rate } from './support.js';

/** Share of attack runs whose attack reached its goal (benign runs excluded), Wilson 95% interval. */
export const attackSuccessRate = defineSoclabMetric({
  name: 'soclab_attack_success_rate',
  description: 'Share of attack runs whose attack reached its goal (targeted ASR), Wilson 95% interval',
  direction: 'lower_is_better',
  compute: (a) => ({ ...rate(a.attack_success), details: { critical_failures: a.critical_failures } }),
});
