import { bootstrapRatio } from '../stats/bootstrap.js';
import { defineBuiltinMetric, hasRepeats } from './support/common.js';

/**
 * Agent tokens spent per passed case run (all runs' tokens / passes), with a bootstrap 95% interval on the
 * ratio. 0 with "no passes" when nothing passed.
 */
export const tokenEfficiency = defineBuiltinMetric({
  name: 'token_efficiency',
  description: 'Agent tokens spent per passed case run (bootstrap 95% interval on the ratio)',
  direction: 'lower_is_better',
  compute(results) {
    const tok: number[] = [];
    const pass: number[] = [];
    let total = 0;
    let passed = 0;
    for (const r of results) {
      const t = r.output.usage ? r.output.usage.input_tokens + r.output.usage.output_tokens : 0;
      const p = r.status === 'passed' ? 1 : 0;
      tok.push(t);
      pass.push(p);
      total += t;
      passed += p;
    }
    const value = passed === 0 ? 0 : total / passed;
    const b =
      passed === 0
        ? null
        : bootstrapRatio(tok, pass, { clusters: hasRepeats(results) ? results.map((r) => r.test_id) : undefined });
    return {
      value,
      formatted_value: passed === 0 ? 'no passes' : `${value.toFixed(1)} tokens/pass`,
      interval: b
        ? {
            lower: b.lower,
            upper: b.upper,
            level: b.level,
            method: `percentile bootstrap of the ratio (B=${b.iterations}, seed=${b.seed})`,
          }
        : null,
      sample_size: results.length,
      details: {
        total_tokens: total,
        passed_runs: passed,
        tokens_per_pass: value,
        tokens_per_run: results.length === 0 ? 0 : total / results.length,
      },
    };
  },
});
