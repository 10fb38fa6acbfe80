import { z } from 'zod';
import type { MetricResultInput } from '../../core/experiment.js';
import type { TestCaseResult } from '../../core/result.js';
import { byCase, type CaseRuns } from './cases.js';
import { percent, scoreInterval } from './common.js';

export const AtKOptions = z.object({
  /** Number of attempts k; defaults to the smallest number of repeats any case has. */
  k: z.number().int().min(1).optional(),
});

/** Shared computation of pass@k / pass^k: per-case estimates averaged over cases, bootstrap over cases. */
export function computeAtK(
  results: TestCaseResult[],
  requestedK: number | undefined,
  estimator: (n: number, c: number, k: number) => number,
  label: string,
): Omit<MetricResultInput, 'name' | 'direction'> {
  const cases = byCase(results);
  if (cases.length === 0)
    return { value: 0, formatted_value: percent(0), sample_size: 0, details: { k: requestedK ?? null, cases: 0 } };
  const k = requestedK ?? Math.min(...cases.map((c) => c.runs.length));
  const used: CaseRuns[] = [];
  const excluded: CaseRuns[] = [];
  for (const c of cases) (c.runs.length >= k ? used : excluded).push(c);
  const values = used.map((c) => estimator(c.runs.length, c.passed, k));
  const value = values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
  return {
    value,
    formatted_value: `${percent(value)} (${label.replace('k', String(k))})`,
    interval: scoreInterval(values),
    sample_size: used.length,
    details: {
      k,
      cases: used.length,
      excluded_cases: excluded.length,
      excluded: excluded.slice(0, 50).map((c) => ({ test_id: c.test_id, runs: c.runs.length })),
      note: excluded.length > 0 ? `${excluded.length} case(s) had fewer than k=${k} runs and were left out` : undefined,
    },
  };
}
