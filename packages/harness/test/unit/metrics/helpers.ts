import type { MetricResult } from '../../../src/core/experiment.js';
import { TestCaseResult, type TestCaseResultInput } from '../../../src/core/result.js';
import { metricRegistry } from '../../../src/metrics/base.js';
import '../../../src/metrics/index.js';

export const ctx = { baseDir: process.cwd(), env: {} };

type Partial2 = Omit<Partial<TestCaseResultInput>, 'output'> & { output?: Partial<TestCaseResultInput['output']> };

/** A result with sensible defaults (passed, no output). */
export function res(partial: Partial2 = {}): TestCaseResult {
  return TestCaseResult.parse({ test_id: 't1', status: 'passed', ...partial, output: { ...(partial.output ?? {}) } });
}

/** Compute a registered metric on results. */
export function calc(name: string, results: TestCaseResult[], options: Record<string, unknown> = {}): MetricResult {
  const plugin = metricRegistry.get(name);
  const parsed = plugin.options.parse(options) as never;
  return plugin.create(parsed, ctx).calculate(results);
}

/** n results for case `id`, the first `passed` of them passing. */
export function repeats(id: string, n: number, passed: number, extra: Partial2 = {}): TestCaseResult[] {
  return Array.from({ length: n }, (_, i) =>
    res({ test_id: id, repeat: i, status: i < passed ? 'passed' : 'failed', score: i < passed ? 1 : 0, ...extra }),
  );
}
