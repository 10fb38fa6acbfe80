import { powerHint } from '../stats/power.js';
import { defineBuiltinMetric, percent, rateInterval } from './support/common.js';

/** Share of case runs that passed, with a Wilson 95% interval. Skipped cases are left out. */
export const successRate = defineBuiltinMetric({
  name: 'success_rate',
  description: 'Share of case runs that passed (Wilson 95% interval)',
  direction: 'higher_is_better',
  compute(results) {
    const n = results.length;
    let passed = 0;
    let errors = 0;
    for (const r of results) {
      if (r.status === 'passed') passed++;
      else if (r.status === 'error') errors++;
    }
    const value = n === 0 ? 0 : passed / n;
    const cases = new Set(results.map((r) => r.test_id)).size;
    return {
      value,
      formatted_value: percent(value),
      interval: rateInterval(passed, n),
      sample_size: n,
      details: {
        total: n,
        passed,
        failed: n - passed - errors,
        errors,
        cases,
        // Smallest success-rate difference a comparison of two runs this size could detect (80% power, 5%).
        power: powerHint(cases, n === 0 ? undefined : value),
      },
    };
  },
});
