import { describe, expect, it } from 'vitest';
import { ExperimentComparator, metricDeltas, pct } from '../../../src/comparison/comparator.js';
import { parseTolerance, toleranceFor } from '../../../src/comparison/gate.js';
import { RegressionDetector } from '../../../src/comparison/regression.js';
import { viewOf } from '../../../src/core/view.js';
import { mcnemarExact } from '../../../src/stats/paired.js';
import { defined } from '../../helpers/defined.js';
import { cases, experiment } from './fixtures.js';

const measure = (c: Awaited<ReturnType<typeof ExperimentComparator.compare>>, name: string) => {
  const m = c.paired.measures.find((x) => x.name === name);
  if (!m) throw new Error(`no measure ${name}`);
  return m;
};

describe('ExperimentComparator: significance on 50 shared cases', () => {
  // Baseline passes 40 of 50 (cases 0..39).
  const baseline = experiment(
    'base',
    cases(50, (i) => i < 40),
  );

  it('does not flag a 2-point drop (3 newly failing, 2 newly passing) as a regression', async () => {
    // c0..c2 now fail, c40..c41 now pass: 39/50.
    const candidate = experiment(
      'cand',
      cases(50, (i) => (i >= 3 && i < 40) || i === 40 || i === 41),
    );
    const c = await ExperimentComparator.compare(baseline, candidate);
    const pass = measure(c, 'pass_rate');
    expect(pass.delta).toBeCloseTo(-0.02, 12);
    expect(pass.test).toBe('exact McNemar');
    expect(pass.p_value).toBeCloseTo(mcnemarExact(3, 2).p_value, 12);
    expect(pass.verdict).toBe('worse_not_significant');
    expect(c.gate.passed).toBe(true);
    expect(c.newly_failed_tests).toEqual(['c0#0', 'c1#0', 'c2#0']);
    expect(c.newly_passed_tests).toEqual(['c40#0', 'c41#0']);
  });

  it('flags a 20-point drop (11 newly failing, 1 newly passing) as a significant regression', async () => {
    const candidate = experiment(
      'cand',
      cases(50, (i) => (i >= 11 && i < 40) || i === 40),
    );
    const c = await ExperimentComparator.compare(baseline, candidate);
    const pass = measure(c, 'pass_rate');
    expect(pass.delta).toBeCloseTo(-0.2, 12);
    expect(pass.p_value).toBeCloseTo(mcnemarExact(11, 1).p_value, 12);
    expect(pass.p_adjusted).toBeLessThan(0.05);
    expect(pass.interval.upper).toBeLessThan(0);
    expect(pass.verdict).toBe('regression');
    expect(c.gate.passed).toBe(false);
    const v = c.gate.violations.find((x) => x.metric_name === 'pass_rate');
    expect(v).toMatchObject({ condition: 'max_worsening', threshold_value: 0 });
    expect(v?.actual_value).toBeCloseTo(0.2, 12);
    expect(v?.p_value).toBe(pass.p_adjusted);
    expect(v?.message).toContain('pass_rate went from 0.8 to 0.6');
  });

  it('lets the 2-point drop fail in --strict mode (point estimate) and the 20-point one pass with a wide tolerance', async () => {
    const small = experiment(
      'cand',
      cases(50, (i) => (i >= 3 && i < 40) || i === 40 || i === 41),
    );
    const strict = await ExperimentComparator.compare(baseline, small, { strict: true });
    expect(strict.gate.mode).toBe('strict');
    expect(strict.gate.passed).toBe(false);
    const big = experiment(
      'cand',
      cases(50, (i) => (i >= 11 && i < 40) || i === 40),
    );
    const tolerant = await ExperimentComparator.compare(baseline, big, { tolerance: 0.25 });
    expect(measure(tolerant, 'pass_rate').verdict).toBe('within_tolerance');
    expect(tolerant.gate.passed).toBe(true);
    const relative = await ExperimentComparator.compare(baseline, big, { tolerance: { pass_rate: '10%' } });
    // 10% of 0.8 = 0.08 < 0.2: still a regression.
    expect(measure(relative, 'pass_rate').tolerance).toBeCloseTo(0.08, 12);
    expect(relative.gate.passed).toBe(false);
  });

  it('applies Holm across the gated measures only: adding ungated measures never changes the gate', async () => {
    const big = experiment(
      'cand',
      cases(50, (i) => (i >= 11 && i < 40) || i === 40),
    );
    const c = await ExperimentComparator.compare(baseline, big);
    const pass = measure(c, 'pass_rate');
    const score = measure(c, 'mean_score');
    // Two gated measures: the smaller p is doubled.
    const smaller = Math.min(pass.p_value as number, score.p_value as number);
    expect(Math.min(pass.p_adjusted as number, score.p_adjusted as number)).toBeCloseTo(Math.min(1, 2 * smaller), 12);
    const latency = measure(c, 'mean_latency');
    expect(latency.gated).toBe(false);
    expect(latency.p_adjusted).toBe(latency.p_value);
  });
});

describe('ExperimentComparator: flips, quarantine, repeats, latency', () => {
  it('classifies flips per case x repeat, ignores skipped results and counts unshared keys', async () => {
    const base = experiment('a', [
      { id: 'x', passed: true },
      { id: 'y', passed: false },
      { id: 'z', passed: false },
      { id: 's', passed: true },
      { id: 'gone', passed: true },
    ]);
    const cand = experiment('b', [
      { id: 'x', passed: false },
      { id: 'y', passed: true },
      { id: 'z', status: 'error' },
      { id: 's', status: 'skipped' },
      { id: 'new', passed: true },
    ]);
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.common_tests).toBe(3);
    expect(c.only_in_baseline).toBe(1);
    expect(c.only_in_candidate).toBe(1);
    expect(c.flips.map((f) => [f.kind, f.key, f.candidate_status])).toEqual([
      ['newly_failing', 'x#0', 'failed'],
      ['newly_passing', 'y#0', 'passed'],
      ['still_failing', 'z#0', 'error'],
    ]);
    expect(c.still_failing_tests).toEqual(['z#0']);
  });

  it('reports quarantined cases but never fails the gate on them', async () => {
    const base = experiment(
      'a',
      cases(30, () => true),
    );
    // Every one of the 15 regressions is in a quarantined case.
    const quarantined = Array.from({ length: 15 }, (_, i) => `c${i}`);
    const cand = experiment(
      'b',
      cases(30, (i) => i >= 15),
      undefined,
    );
    cand.metadata.quarantine = quarantined;
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.quarantine).toHaveLength(15);
    expect(c.flips.filter((f) => f.kind === 'newly_failing')).toHaveLength(15);
    expect(c.flips.every((f) => f.quarantined)).toBe(true);
    expect(c.paired.excluded_quarantined).toBe(15);
    expect(c.paired.pairs).toBe(15);
    expect(c.gate.passed).toBe(true);
    // Without the quarantine the same runs fail.
    delete cand.metadata.quarantine;
    expect((await ExperimentComparator.compare(base, cand)).gate.passed).toBe(false);
    // The option adds to the run's list.
    expect((await ExperimentComparator.compare(base, cand, { quarantine: quarantined })).gate.passed).toBe(true);
  });

  it('averages repeats per case before testing (clustered), so 3 repeats of 10 cases are 10 units, not 30', async () => {
    const spec = (pass: (i: number, r: number) => boolean) =>
      Array.from({ length: 10 }, (_, i) =>
        [0, 1, 2].map((r) => ({ id: `c${i}`, repeat: r, passed: pass(i, r) })),
      ).flat();
    const base = experiment(
      'a',
      spec(() => true),
    );
    const cand = experiment(
      'b',
      spec((i, r) => !(i < 4 && r === 0)),
    );
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.paired.unit).toBe('case');
    expect(c.paired.pairs).toBe(10);
    const pass = measure(c, 'pass_rate');
    expect(pass.n).toBe(10);
    expect(pass.delta).toBeCloseTo(-4 / 30, 12);
    expect(pass.test).toBe('sign-flip permutation (exact)');
    // 4 of 10 cases got worse, none better: exact two-sided p = 2 / 2^4.
    expect(pass.p_value).toBeCloseTo(2 / 16, 12);
    expect(c.newly_failed_tests).toEqual(['c0#0', 'c1#0', 'c2#0', 'c3#0']);
  });

  it('treats latency as lower-is-better and gates it only when asked, with a relative tolerance', async () => {
    const base = experiment(
      'a',
      cases(
        40,
        () => true,
        (i) => ({ latency: 1 + (i % 5) * 0.1 }),
      ),
    );
    const cand = experiment(
      'b',
      cases(
        40,
        () => true,
        (i) => ({ latency: 1.5 + (i % 5) * 0.1 }),
      ),
    );
    const c = await ExperimentComparator.compare(base, cand);
    const lat = measure(c, 'mean_latency');
    expect(lat.direction).toBe('lower_is_better');
    expect(lat.delta).toBeCloseTo(0.5, 9);
    expect(lat.worse_by).toBeCloseTo(0.5, 9);
    expect(lat.interval.lower).toBeCloseTo(0.5, 9);
    expect(lat.verdict).toBe('regression');
    expect(c.gate.passed).toBe(true);
    const gated = await ExperimentComparator.compare(base, cand, { gate: ['pass_rate', 'mean_latency'] });
    expect(gated.gate.passed).toBe(false);
    expect(gated.gate.violations[0]?.metric_name).toBe('mean_latency');
    const tolerant = await ExperimentComparator.compare(base, cand, {
      gate: ['mean_latency'],
      tolerance: parseTolerance('mean_latency=50%'),
    });
    expect(tolerant.gate.passed).toBe(true);
  });

  it('adds per-evaluator measures when runs share two or more evaluators', async () => {
    const evals = (a: number, b: number) => [
      { evaluator: 'contains', score: a, passed: a === 1 },
      { evaluator: 'tool_usage', score: b, passed: b === 1 },
    ];
    const base = experiment(
      'a',
      cases(
        20,
        () => true,
        () => ({ evaluations: evals(1, 1), score: 1 }),
      ),
    );
    const cand = experiment(
      'b',
      cases(
        20,
        () => true,
        (i) => ({ evaluations: evals(1, i < 10 ? 0.5 : 1), score: 1 }),
      ),
    );
    const c = await ExperimentComparator.compare(viewOf(base), viewOf(cand));
    expect(measure(c, 'score:contains').verdict).toBe('unchanged');
    expect(measure(c, 'score:tool_usage').delta).toBeCloseTo(-0.25, 12);
    expect(measure(c, 'score:tool_usage').gated).toBe(false);
    const all = await ExperimentComparator.compare(base, cand, { gate: ['score:*'] });
    expect(all.gate.violations.map((v) => v.metric_name)).toEqual(['score:tool_usage']);
  });
});

describe('ExperimentComparator: runs with nothing to pair', () => {
  it('two runs that share no case (different suites, or an empty run) do not pass the gate', async () => {
    const base = experiment(
      'a',
      cases(20, () => true),
    );
    const other = experiment('b', [
      { id: 'x', passed: false },
      { id: 'y', status: 'error' },
    ]);
    const empty = experiment('c', []);
    for (const [v1, v2] of [
      [base, other],
      [empty, other],
      [empty, empty],
    ] as const) {
      const c = await ExperimentComparator.compare(v1, v2);
      expect(c.common_tests).toBe(0);
      expect(measure(c, 'pass_rate').verdict).toBe('no_data');
      expect(c.gate.passed).toBe(false);
      expect(c.gate.status).toBe('inconclusive');
      expect(c.gate.inconclusive.map((i) => [i.measure, i.n])).toEqual([
        ['pass_rate', 0],
        ['mean_score', 0],
      ]);
      expect(c.gate.inconclusive[0]?.message).toMatch(/no paired cases/);
    }
  });

  it('a gated measure with data still decides; an ungated one without data changes nothing', async () => {
    const base = experiment(
      'a',
      cases(10, () => true),
    );
    const cand = experiment(
      'b',
      cases(10, () => true),
    );
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.gate.status).toBe('passed');
  });
});

describe('metric deltas (the seed MetricDelta)', () => {
  const metric = (value: number, direction: 'higher_is_better' | 'lower_is_better' | 'neutral') => ({
    name: 'm',
    value,
    formatted_value: String(value),
    direction,
    description: null,
    interval: null,
    details: {},
  });

  it('is direction-aware and uses safe percentages', () => {
    const d = metricDeltas(
      {
        success_rate: metric(0.8, 'higher_is_better'),
        latency_p95: metric(2, 'lower_is_better'),
        zero: metric(0, 'higher_is_better'),
        only_a: metric(1, 'neutral'),
      },
      {
        success_rate: metric(0.6, 'higher_is_better'),
        latency_p95: metric(1.5, 'lower_is_better'),
        zero: metric(0.5, 'higher_is_better'),
        tokens: metric(3, 'neutral'),
      },
    );
    expect(Object.keys(d)).toEqual(['latency_p95', 'success_rate', 'zero']);
    expect(d.success_rate).toMatchObject({ is_regression: true, is_improvement: false });
    expect(d.success_rate?.pct_delta).toBeCloseTo(-25, 9);
    expect(d.latency_p95).toMatchObject({ delta: -0.5, is_improvement: true, is_regression: false, pct_delta: -25 });
    expect(defined(d.zero, 'the zero delta').pct_delta).toBeNull();
    expect(pct(1, 0)).toBeNull();
  });

  it('leaves neutral metrics and sub-epsilon changes unclassified', () => {
    const d = metricDeltas(
      { n: metric(1, 'neutral'), h: metric(0.5, 'higher_is_better') },
      { n: metric(5, 'neutral'), h: metric(0.5000001, 'higher_is_better') },
    );
    expect(d.n).toMatchObject({ is_improvement: false, is_regression: false });
    expect(d.h).toMatchObject({ is_improvement: false, is_regression: false });
  });

  it('attaches the paired p-value to success_rate in a comparison', async () => {
    const m = { success_rate: { name: 'success_rate', value: 0.8, formatted_value: '80.0%' } };
    const base = experiment(
      'a',
      cases(10, (i) => i < 8),
      { metrics: m },
    );
    const cand = experiment(
      'b',
      cases(10, (i) => i < 8),
      { metrics: m },
    );
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.deltas.success_rate?.details).toMatchObject({ measure: 'pass_rate', p_value: 1 });
  });
});

describe('RegressionDetector.checkThresholds', () => {
  const run = experiment('a', [], {
    metrics: {
      success_rate: { name: 'success_rate', value: 0.8, formatted_value: '80%' },
      latency_p95: { name: 'latency_p95', value: 2.5, formatted_value: '2.5s', direction: 'lower_is_better' },
    },
  });

  it('flags values below a minimum or above a maximum, and lets the bound itself pass', () => {
    const r = RegressionDetector.checkThresholds(run, {
      success_rate: { minimum: 0.85 },
      latency_p95: { max: 2.5 },
      missing: { minimum: 1 },
    });
    expect(r.checked_metrics).toBe(2);
    expect(r.passed).toBe(false);
    expect(r.violations).toEqual([
      {
        metric_name: 'success_rate',
        condition: 'minimum',
        threshold_value: 0.85,
        actual_value: 0.8,
        p_value: null,
        message: 'success_rate was 0.8000, below required minimum of 0.8500',
      },
    ]);
    const over = RegressionDetector.checkThresholds(viewOf(run), { latency_p95: { maximum: 2, max: 9 } });
    expect(over.violations[0]?.message).toBe('latency_p95 was 2.5000, exceeding maximum allowed 2.0000');
  });

  it('names the bad rule when a bound is not a number', () => {
    expect(() => RegressionDetector.checkThresholds(run, { success_rate: { min: 'high' } })).toThrow(
      "thresholds.success_rate.min: expected a number, got 'high'",
    );
  });

  it('re-decides a comparison gate without re-reading the runs', async () => {
    const base = experiment(
      'a',
      cases(50, (i) => i < 40),
    );
    const cand = experiment(
      'b',
      cases(50, (i) => (i >= 3 && i < 40) || i === 40 || i === 41),
    );
    const c = await ExperimentComparator.compare(base, cand);
    expect(c.gate.passed).toBe(true);
    expect(RegressionDetector.checkComparison(c, { strict: true }).gate.passed).toBe(false);
  });
});

describe('tolerance parsing', () => {
  it('accepts numbers, percentages and per-measure maps', () => {
    expect(parseTolerance('0.02')).toBe(0.02);
    expect(parseTolerance('5%')).toBe('5%');
    expect(parseTolerance('pass_rate=0.01, mean_latency=20%')).toEqual({ pass_rate: 0.01, mean_latency: '20%' });
    expect(toleranceFor(0.02, 'mean_latency', 3)).toBe(0);
    expect(toleranceFor(0.02, 'score:contains', 3)).toBe(0.02);
    expect(toleranceFor({ '*': 0.03 }, 'mean_score', 1)).toBe(0.03);
    expect(() => parseTolerance('-1')).toThrow("tolerance: expected a non-negative number or percentage, got '-1'");
    expect(() => parseTolerance('pass_rate')).toThrow();
  });
});
