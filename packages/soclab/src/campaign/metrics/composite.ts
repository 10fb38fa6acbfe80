import { defineSoclabMetric } from './support.js';

/** The weighted assurance composite of the five score families. */
export const composite = defineSoclabMetric({
  name: 'soclab_composite',
  description: 'Assurance composite: weighted sum of the five score families',
  direction: 'higher_is_better',
  compute: (a) => ({
    value: a.composite,
    formatted_value: a.composite.toFixed(3),
    sample_size: a.sample_count,
    details: Object.fromEntries(a.families.map((f) => [f.family, { weight: f.weight, value: f.value }])),
  }),
});
