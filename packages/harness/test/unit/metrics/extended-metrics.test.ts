import { describe, expect, it } from 'vitest';
import { metricRegistry } from '../../../src/metrics/base.js';
import { passAtK, passHatK } from '../../../src/metrics/support/cases.js';
import { calc, repeats, res } from './helpers.js';

const lat = (values: number[]) => values.map((v, i) => res({ test_id: `c${i}`, output: { latency: v } }));

describe('latency percentiles', () => {
  const hundred = lat(Array.from({ length: 100 }, (_, i) => (i + 1) / 10));
  it('p50/p95/p99 interpolate like NumPy, with an order-statistic interval', () => {
    expect(calc('p50_latency', hundred).value).toBeCloseTo(5.05, 10);
    const p95 = calc('p95_latency', hundred);
    expect(p95.value).toBeCloseTo(9.505, 10);
    expect(p95.formatted_value).toMatch(/^9\.5[01]s$/);
    expect(p95.direction).toBe('lower_is_better');
    expect(p95.interval!.lower).toBeLessThanOrEqual(p95.value);
    expect(p95.interval!.upper).toBeGreaterThanOrEqual(p95.value);
    expect(calc('p99_latency', hundred).value).toBeCloseTo(9.901, 10);
  });
  it('aliases latency_p95 etc. report under the name used', () => {
    const m = calc('latency_p95', hundred);
    expect(m.name).toBe('latency_p95');
    expect(m.value).toBeCloseTo(9.505, 10);
    expect(metricRegistry.has('latency_p50') && metricRegistry.has('latency_p99')).toBe(true);
  });
  it('falls back to duration and handles empty input', () => {
    expect(calc('p95_latency', [res({ duration: 2 })]).value).toBe(2);
    expect(calc('p95_latency', [])).toMatchObject({ value: 0, sample_size: 0, interval: null });
  });
});

describe('cost_per_case and tokens', () => {
  const judged = (cost: number, input: number, output: number) => ({
    evaluator: 'llm_rubric',
    score: 1,
    passed: true,
    details: { judge: { cost, usage: { input_tokens: input, output_tokens: output } } },
  });
  const results = [
    res({
      test_id: 'a',
      output: { cost: 0.01, usage: { input_tokens: 100, output_tokens: 50 } },
      evaluations: [judged(0.002, 30, 10)],
    }),
    res({ test_id: 'b', output: { cost: 0.03, usage: { input_tokens: 300, output_tokens: 50, estimated: true } } }),
  ];
  it('cost_per_case is the mean with a bootstrap interval and an agent/judge split', () => {
    const m = calc('cost_per_case', results);
    expect(m.value).toBeCloseTo(0.021);
    expect(m.details.agent_per_case).toBeCloseTo(0.02);
    expect(m.details.judge_per_case).toBeCloseTo(0.001);
    expect(m.interval).not.toBeNull();
  });
  it('tokens totals agent and judge tokens and counts estimates', () => {
    const m = calc('tokens', results);
    expect(m.value).toBe(540);
    expect(m.formatted_value).toBe('540 tokens');
    expect(m.details).toMatchObject({
      agent_input_tokens: 400,
      agent_output_tokens: 100,
      judge_input_tokens: 30,
      judge_output_tokens: 10,
      estimated_runs: 1,
    });
    expect(calc('tokens', results, { include: 'agent' }).value).toBe(500);
    expect(calc('tokens', []).value).toBe(0);
  });
});

describe('token_efficiency', () => {
  it('divides all tokens by passes (origin example: 450 tokens/pass)', () => {
    const results = [
      res({ test_id: 'a', output: { usage: { input_tokens: 100, output_tokens: 50 } } }),
      res({ test_id: 'b', output: { usage: { input_tokens: 200, output_tokens: 100 } } }),
      res({ test_id: 'c', status: 'failed', output: { usage: { input_tokens: 300, output_tokens: 150 } } }),
    ];
    const m = calc('token_efficiency', results);
    expect(m.value).toBe(450);
    expect(m.formatted_value).toBe('450.0 tokens/pass');
    expect(m.details.tokens_per_run).toBe(300);
    expect(m.interval).not.toBeNull();
  });
  it('reports no passes plainly', () => {
    expect(calc('token_efficiency', [res({ status: 'failed' })]).formatted_value).toBe('no passes');
  });
});

describe('pass_at_k and pass_hat_k', () => {
  it('estimators match closed forms', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12);
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passHatK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(4, 0, 2)).toBe(0);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
  });
  const results = [...repeats('a', 5, 2), ...repeats('b', 5, 5), ...repeats('c', 5, 0)];
  it('pass_at_k averages per-case estimates; k defaults to the fewest repeats', () => {
    const m = calc('pass_at_k', results, { k: 2 });
    expect(m.value).toBeCloseTo((0.7 + 1 + 0) / 3);
    expect(m.formatted_value).toContain('pass@2');
    expect(m.interval).not.toBeNull();
    expect(calc('pass_at_k', results).details.k).toBe(5);
  });
  it('pass_hat_k measures consistency', () => {
    expect(calc('pass_hat_k', results, { k: 2 }).value).toBeCloseTo((0.1 + 1 + 0) / 3);
  });
  it('cases with fewer than k runs are left out and reported', () => {
    const m = calc('pass_at_k', [...results, ...repeats('d', 1, 1)], { k: 2 });
    expect(m.details.excluded_cases).toBe(1);
    expect(m.sample_size).toBe(3);
  });
  it('empty input', () => {
    expect(calc('pass_at_k', []).value).toBe(0);
  });
});

describe('flaky_cases', () => {
  it('counts repeated cases whose outcomes disagree, with flip rates, worst first', () => {
    const alternating = [0, 1, 2, 3].map((i) =>
      res({ test_id: 'alt', repeat: i, status: i % 2 === 0 ? 'passed' : 'failed' }),
    );
    const results = [
      ...repeats('once', 4, 3),
      ...alternating,
      ...repeats('stable', 4, 4),
      ...repeats('broken', 4, 0),
      res({ test_id: 'single' }),
    ];
    const m = calc('flaky_cases', results);
    expect(m.value).toBe(2);
    expect(m.formatted_value).toBe('2 of 4');
    expect(m.direction).toBe('lower_is_better');
    const cases = m.details.cases as { test_id: string; flip_rate: number; outcomes: string }[];
    expect(cases.map((c) => c.test_id)).toEqual(['alt', 'once']);
    expect(cases[0]).toMatchObject({ flip_rate: 1, outcomes: 'PFPF' });
    expect(cases[1]?.flip_rate).toBeCloseTo(1 / 3);
    expect(m.details.flaky_share).toBe(0.5);
  });
  it('no repeats means nothing to judge', () => {
    expect(calc('flaky_cases', [res()]).formatted_value).toBe('0 (no repeats)');
  });
});

describe('every built-in metric', () => {
  it('declares a direction, handles empty input, supports by: tag', () => {
    const tagged = [
      res({ test_id: 'a', tags: ['x'], output: { latency: 1, cost: 0.1 } }),
      res({ test_id: 'b', tags: ['y'], status: 'failed' }),
    ];
    for (const plugin of metricRegistry.list()) {
      expect(['higher_is_better', 'lower_is_better', 'neutral'], plugin.name).toContain(plugin.direction);
      const empty = calc(plugin.name, []);
      expect(Number.isFinite(empty.value), plugin.name).toBe(true);
      const m = calc(plugin.name, tagged, { by: 'tag' });
      expect(Object.keys(m.details.by_tag as object).sort(), plugin.name).toEqual(['x', 'y']);
    }
  });
});
