import { z } from 'zod';
import type { TestCaseResult } from '../core/result.js';
import { byCase } from './support/cases.js';
import { defineBuiltinMetric, rateInterval } from './support/common.js';

const Options = z.object({
  /** How many flaky cases to list in details (worst first). */
  list: z.number().int().min(0).default(50),
});

/**
 * Why a case's repeats disagreed: `judge` when every run gave the judge the same output (only the verdict
 * changed), `agent` when the output changed or no LLM judge was involved (deterministic evaluators give the same
 * verdict on the same output).
 */
function varianceSource(runs: TestCaseResult[]): 'agent' | 'judge' {
  const hashes = runs.map((r) => {
    const hs = r.evaluations
      .map((e) => (e.details?.judge as { output_sha256?: unknown } | undefined)?.output_sha256)
      .filter((h): h is string => typeof h === 'string');
    return hs.length > 0 ? hs[0] : null;
  });
  if (hashes.some((h) => h === null)) return 'agent';
  return hashes.every((h) => h === hashes[0]) ? 'judge' : 'agent';
}

/**
 * Number of repeated cases whose agent behaved inconsistently (some runs pass, some do not, and the output
 * changed). Cases where only an LLM judge's verdict changed on an identical output are counted apart
 * (`judge_flaky`): they measure the judge, not the agent. Each listed case carries its pass rate, flip rate
 * (share of consecutive repeats whose outcome changed) and `cause`; details give the flaky share of repeated
 * cases with a Wilson 95% interval.
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
        for (const [i, run] of c.runs.entries()) {
          const previous = c.runs[i - 1];
          if (previous && (run.status === 'passed') !== (previous.status === 'passed')) flips++;
        }
        return {
          test_id: c.test_id,
          runs: c.runs.length,
          passed: c.passed,
          pass_rate: c.passed / c.runs.length,
          flip_rate: flips / (c.runs.length - 1),
          outcomes: c.runs.map((r) => (r.status === 'passed' ? 'P' : r.status === 'error' ? 'E' : 'F')).join(''),
          cause: varianceSource(c.runs),
        };
      })
      .sort(
        (a, b) =>
          b.flip_rate - a.flip_rate ||
          Math.abs(0.5 - a.pass_rate) - Math.abs(0.5 - b.pass_rate) ||
          a.test_id.localeCompare(b.test_id),
      );
    const agentFlaky = flaky.filter((c) => c.cause === 'agent').length;
    const judgeFlaky = flaky.length - agentFlaky;
    const share = repeated.length === 0 ? 0 : agentFlaky / repeated.length;
    return {
      value: agentFlaky,
      formatted_value:
        repeated.length === 0
          ? '0 (no repeats)'
          : `${agentFlaky} of ${repeated.length}${judgeFlaky > 0 ? ` (+${judgeFlaky} where only the judge's verdict changed)` : ''}`,
      sample_size: repeated.length,
      details: {
        repeated_cases: repeated.length,
        agent_flaky: agentFlaky,
        judge_flaky: judgeFlaky,
        flaky_share: share,
        flaky_share_interval: rateInterval(agentFlaky, repeated.length),
        cases: flaky.slice(0, opts.list),
      },
    };
  },
});
