import { defineSoclabMetric } from './support.js';

/** The recommended authority level (1..5) and the rule that bound it. */
export const authorityLevel = defineSoclabMetric({
  name: 'soclab_authority_level',
  description: 'Recommended operational authority (L1 Observe .. L5 Bounded autonomy) and the rule that bound it',
  direction: 'higher_is_better',
  compute: (a) => ({
    value: Number(a.authority.level.slice(1)),
    formatted_value: `${a.authority.level} ${a.authority.label}`,
    // An ordinal: a change reads L1→L4, not +300%.
    display: 'level',
    sample_size: a.sample_count,
    details: { binding_rule: a.authority.binding_rule, binding_detail: a.authority.binding_detail },
  }),
});
