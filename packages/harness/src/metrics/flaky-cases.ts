import { z } from 'zod';
import { byCase } from './support/cases.js';
import { defineBuiltinMetric, rateInterval } from './support/common.js';

const Options = z.object({
  /** How many flaky cases to list in details (worst first). */
  list: z.number().int().min(0).default(50),
});

/**
 * Number of repeated cases whose runs disagree (some pass, some do not). Each listed case carries its pass
 * rate and flip rate (share of consecutive repeats whose outcome changed); details give the flaky share of
 * repeated cases with a Wilson 95% interval.
 */
export const flakyCases = defineBuiltinMetric({
  name: 'flaky_cases',
  description: "Cases whose repeats disagree, with each case's flip rate (flaky share has a Wilson 95% interval)",
  direction: 'lower_is_better',
  options: Options,
  compute(results, opts) {
    const repeated = byCase(results).filter((c) => c.runs.length >= 2);
    const flaky = repeated
      .filter((c) => c.passed > 0 && c.passed < c.runs.length)
      .map((c) => {
        let flips = 0;
        for (let i = 1; i < c.runs.length; i++)
          if ((c.runs[i].status === 'passed') !== (c.runs[i - 1].status === 'passed')) flips++;
        return {
          test_id: c.test_id,
          runs: c.runs.length,
          passed: c.passed,
          pass_rate: c.passed / c.runs.length,
          flip_rate: flips / (c.runs.length - 1),
          outcomes: c.runs.map((r) => (r.status === 'passed' ? 'P' : r.status === 'error' ? 'E' : 'F')).join(''),
        };
      })
      .sort(
        (a, b) =>
          b.flip_rate - a.flip_rate ||
          Math.abs(0.5 - a.pass_rate) - Math.abs(0.5 - b.pass_rate) ||
          a.test_id.localeCompare(b.test_id),
      );
    const share = repeated.length === 0 ? 0 : flaky.length / repeated.length;
    return {
      value: flaky.length,
      formatted_value: repeated.length === 0 ? '0 (no repeats)' : `${flaky.length} of ${repeated.length}`,
      sample_size: repeated.length,
      details: {
        repeated_cases: repeated.length,
        flaky_share: share,
        flaky_share_interval: rateInterval(flaky.length, repeated.length),
        cases: flaky.slice(0, opts.list),
      },
    };
  },
});
