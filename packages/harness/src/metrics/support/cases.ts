import type { TestCaseResult } from '../../core/result.js';

/** Runs of one case in repeat order, with its pass count. */
export interface CaseRuns {
  test_id: string;
  runs: TestCaseResult[];
  passed: number;
}

/** Group (non-skipped) results by case, each case's runs sorted by repeat index; cases in first-seen order. */
export function byCase(results: readonly TestCaseResult[]): CaseRuns[] {
  const map = new Map<string, CaseRuns>();
  for (const r of results) {
    let c = map.get(r.test_id);
    if (!c) {
      c = { test_id: r.test_id, runs: [], passed: 0 };
      map.set(r.test_id, c);
    }
    c.runs.push(r);
    if (r.status === 'passed') c.passed++;
  }
  for (const c of map.values()) c.runs.sort((a, b) => a.repeat - b.repeat);
  return [...map.values()];
}

/**
 * Unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"):
 * the probability that at least one of k runs drawn without replacement from n (c passing) passes,
 * 1 - C(n-c, k) / C(n, k), computed as a product to avoid huge binomials.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`k (${k}) exceeds runs (${n})`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/**
 * pass^k (Yao et al. 2024, τ-bench): the probability that k runs drawn without replacement from n
 * (c passing) all pass, C(c, k) / C(n, k). Measures consistency rather than best-of-k.
 */
export function passHatK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`k (${k}) exceeds runs (${n})`);
  if (c < k) return 0;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return p;
}
