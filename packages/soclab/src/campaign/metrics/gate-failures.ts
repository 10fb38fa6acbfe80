import { defineSoclabMetric } from './support.js';

/** Number of mandatory gates that failed (any failure caps authority at L1). */
export const gateFailures = defineSoclabMetric({
  name: 'soclab_gate_failures',
  description: 'Mandatory gates failed (any failure caps the recommended authority at L1)',
  direction: 'lower_is_better',
  compute: (a) => ({
    value: a.gate_failures.length,
    formatted_value: a.gate_failures.length === 0 ? 'none' : a.gate_failures.join(', '),
    sample_size: a.sample_count,
    details: { failed: a.gate_failures, critical_failures: a.critical_failures },
  }),
});
