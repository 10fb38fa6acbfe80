import { describe, expect, it } from 'vitest';
import { metricRegistry } from '../../../src/metrics/base.js';
import { checkThresholds } from '../../../src/runner/thresholds.js';
import { calc, repeats, res } from './helpers.js';

describe('success_rate', () => {
  it('counts passes over non-skipped runs with a Wilson interval', () => {
    const results = [
      ...repeats('a', 1, 1),
      ...repeats('b', 1, 0),
      res({ test_id: 'c', status: 'skipped' }),
      res({ test_id: 'd', status: 'error' }),
    ];
    const m = calc('success_rate', results);
    expect(m.value).toBeCloseTo(1 / 3);
    expect(m.formatted_value).toBe('33.3%');
    expect(m.direction).toBe('higher_is_better');
    expect(m.details).toMatchObject({ total: 3, passed: 1, failed: 1, errors: 1 });
    expect(m.interval?.method).toBe('wilson');
    expect(m.interval!.lower).toBeLessThan(m.value);
    expect(m.interval!.upper).toBeGreaterThan(m.value);
  });
  it('reference interval 7/10', () => {
    const results = Array.from({ length: 10 }, (_, i) =>
      res({ test_id: `c${i}`, status: i < 7 ? 'passed' : 'failed' }),
    );
    const m = calc('success_rate', results);
    expect(m.interval!.lower).toBeCloseTo(0.3968, 4);
    expect(m.interval!.upper).toBeCloseTo(0.8922, 4);
  });
  it('empty input is 0% with no interval', () => {
    const m = calc('success_rate', []);
    expect(m).toMatchObject({ value: 0, formatted_value: '0.0%', interval: null, sample_size: 0 });
  });
  it('by: tag adds a per-tag breakdown', () => {
    const results = [
      res({ test_id: 'a', tags: ['billing'] }),
      res({ test_id: 'b', tags: ['billing', 'hard'], status: 'failed' }),
    ];
    const m = calc('success_rate', results, { by: 'tag' });
    const byTag = m.details.by_tag as Record<string, { value: number; sample_size: number }>;
    expect(byTag.billing?.value).toBe(0.5);
    expect(byTag.hard).toMatchObject({ value: 0, sample_size: 1 });
  });
  it('rejects unknown options', () => {
    expect(() => metricRegistry.get('success_rate').options.parse({ bye: 'tag' })).toThrow();
  });
});

describe('accuracy', () => {
  it('is the mean score with a bootstrap interval, clustered by case with repeats', () => {
    const results = [...repeats('a', 3, 3), ...repeats('b', 3, 0), ...repeats('c', 3, 2)];
    const m = calc('accuracy', results);
    expect(m.value).toBeCloseTo(5 / 9);
    expect(m.formatted_value).toBe('0.56');
    expect(m.interval?.method).toContain('clustered by case: 3');
    expect(m.interval!.lower).toBeLessThanOrEqual(m.value);
    expect(m.interval!.upper).toBeGreaterThanOrEqual(m.value);
    // reproducible: same seed, same interval
    expect(calc('accuracy', results).interval).toEqual(m.interval);
  });
  it('empty input', () => {
    expect(calc('accuracy', [])).toMatchObject({ value: 0, interval: null });
  });
  it('a small perfect run is not certain: the interval is at least the Wilson one, so a lower-bound gate holds', () => {
    const perfect = (n: number) => Array.from({ length: n }, (_, i) => res({ test_id: `c${i}`, score: 1 }));
    const gate = { accuracy: { minimum: 0.8, on: 'lower_bound' as const } };
    // Wilson 95% lower bounds of n/n (reference values: 1/1 0.2065, 5/5 0.5655, 100/100 0.9630).
    const one = calc('accuracy', perfect(1));
    expect(one.interval!.lower).toBeCloseTo(0.2065, 4);
    const five = calc('accuracy', perfect(5));
    expect(five.interval).toMatchObject({ upper: 1 });
    expect(five.interval!.lower).toBeCloseTo(0.5655, 4);
    expect(five.interval!.method).toContain('at least the Wilson interval of the mean over 5 unit(s)');
    expect(checkThresholds({ accuracy: five }, gate).passed).toBe(false);
    const hundred = calc('accuracy', perfect(100));
    expect(hundred.interval!.lower).toBeCloseTo(0.963, 3);
    expect(checkThresholds({ accuracy: hundred }, gate).passed).toBe(true);
  });
  it('uniform partial scores are not certain either; a varied large sample keeps the bootstrap where it is wider', () => {
    const uniform = calc(
      'accuracy',
      Array.from({ length: 5 }, (_, i) => res({ test_id: `c${i}`, score: 0.8 })),
    );
    // The bootstrap of five equal scores is the point [0.8, 0.8]; the floor is Wilson's 4/5: 0.3755-0.9638.
    expect(uniform.interval!.lower).toBeCloseTo(0.3755, 4);
    expect(uniform.interval!.upper).toBeCloseTo(0.9638, 4);
    // Repeats: the units are the cases (3), not the 9 runs.
    const repeated = calc('accuracy', [...repeats('a', 3, 3), ...repeats('b', 3, 3), ...repeats('c', 3, 3)]);
    expect(repeated.interval!.lower).toBeCloseTo(0.4385, 4);
  });
});

describe('reliability and error_rate', () => {
  const results = [
    res({ test_id: 'a' }),
    res({ test_id: 'b', status: 'error', output: { error: 'request timed out' } }),
    res({ test_id: 'c', status: 'failed' }),
  ];
  it('reliability counts runs without an agent error', () => {
    const m = calc('reliability', results);
    expect(m.value).toBeCloseTo(2 / 3);
    expect(m.details).toMatchObject({ total: 3, error_free: 2, errors: 1 });
    expect(calc('reliability', []).value).toBe(1);
  });
  it('error_rate is the complement, lower is better, with kinds', () => {
    const m = calc('error_rate', results);
    expect(m.value).toBeCloseTo(1 / 3);
    expect(m.direction).toBe('lower_is_better');
    expect(m.details.kinds).toEqual({ timeout: 1 });
    expect(calc('error_rate', []).value).toBe(0);
  });
});

describe('latency', () => {
  it('mean of reported latency, falling back to duration', () => {
    const m = calc('latency', [res({ test_id: 'a', output: { latency: 1 } }), res({ test_id: 'b', duration: 3 })]);
    expect(m.value).toBe(2);
    expect(m.formatted_value).toBe('2.00s');
    expect(m.details).toMatchObject({ min: 1, max: 3 });
    expect(m.interval).not.toBeNull();
  });
  it('empty input', () => {
    expect(calc('latency', [])).toMatchObject({ value: 0, formatted_value: '0.00s' });
  });
});

describe('cost', () => {
  const judged = {
    evaluator: 'llm_rubric',
    score: 1,
    passed: true,
    details: { judge: { provider: 'mock', model: 'm', cost: 0.01, usage: { input_tokens: 10, output_tokens: 5 } } },
  };
  const results = [
    res({ test_id: 'a', output: { cost: 0.02 }, evaluations: [judged] }),
    res({ test_id: 'b', output: { cost: 0.04 } }),
    res({ test_id: 'c' }),
  ];
  it('totals agent and judge spend separately', () => {
    const m = calc('cost', results);
    expect(m.value).toBeCloseTo(0.07);
    expect(m.formatted_value).toBe('$0.0700');
    expect(m.details.agent_cost).toBeCloseTo(0.06);
    expect(m.details.judge_cost).toBeCloseTo(0.01);
    expect(m.details.per_case).toBeCloseTo(0.07 / 3);
    expect(m.details.reported_runs).toBe(2);
  });
  it('include: agent counts only the agent', () => {
    expect(calc('cost', results, { include: 'agent' }).value).toBeCloseTo(0.06);
  });
  it('empty input', () => {
    expect(calc('cost', [])).toMatchObject({ value: 0, formatted_value: '$0.0000' });
  });
});

describe('success_rate power hint', () => {
  it('states the smallest detectable difference for the number of cases', () => {
    const results = Array.from({ length: 93 }, (_, i) =>
      res({ test_id: `c${i}`, status: i % 2 === 0 ? 'passed' : 'failed' }),
    );
    const power = calc('success_rate', results).details.power as { n: number; mdd: number; message: string };
    expect(power.n).toBe(93);
    expect(power.mdd).toBeCloseTo(0.2, 2);
    expect(power.message).toContain('20.0 points');
  });
});
