import { displayOf, percentChangeApplies } from '../core/display.js';
import type { Experiment, MetricDirection, MetricResult } from '../core/experiment.js';
import { itemAt } from '../core/item-at.js';
import { type ExperimentView, isView, viewOf } from '../core/view.js';
import { mcnemarExact, pairedBootstrap, signFlipTest } from '../stats/paired.js';
import { DEFAULT_SEED } from '../stats/rng.js';
import { collectRun, type RunTable, rowsInOrder } from './collect.js';
import { applyGate, EPSILON, type GateOptions } from './gate.js';
import type { CaseFlip, ExperimentComparison, MetricDelta, PairedMeasure } from './models.js';

export interface CompareOptions extends GateOptions {
  /** Interval level for the paired bootstrap; default 0.95. */
  level?: number;
  /** Seed of the bootstrap and permutation resampling; fixed by default so reports are reproducible. */
  seed?: number;
  /** Bootstrap / permutation resamples (default 2000; reduced automatically for very large runs). */
  resamples?: number;
  /** Extra quarantined test ids, added to the candidate's `metadata.quarantine`. */
  quarantine?: readonly string[];
}

/** Run-level metrics that are the mean of a paired per-case measure, so they can borrow its test. */
const METRIC_TO_MEASURE: Readonly<Record<string, string>> = {
  success_rate: 'pass_rate',
  pass_rate: 'pass_rate',
  mean_score: 'mean_score',
  average_score: 'mean_score',
};

type Run = Experiment | ExperimentView;

/**
 * Compares a baseline run with a candidate run (the seed's `ExperimentComparator`). Runs are read as
 * streams, so two 100,000-case runs can be compared in bounded memory.
 *
 * @example
 * const comparison = await ExperimentComparator.compare(await loadRun('runs/a'), await loadRun('runs/b'));
 * if (!comparison.gate.passed) process.exitCode = 1;
 */
export const ExperimentComparator = {
  async compare(baseline: Run, candidate: Run, options: CompareOptions = {}): Promise<ExperimentComparison> {
    const base = await collectRun(isView(baseline) ? baseline : viewOf(baseline));
    const cand = await collectRun(isView(candidate) ? candidate : viewOf(candidate));
    return compareTables(base, cand, options);
  },
};

/** Compare two collected runs (exposed for callers that already hold the tables). */
export function compareTables(base: RunTable, cand: RunTable, options: CompareOptions = {}): ExperimentComparison {
  const level = options.level ?? 0.95;
  const seed = options.seed ?? DEFAULT_SEED;
  const quarantine = new Set<string>([...quarantineOf(cand.header.metadata), ...(options.quarantine ?? [])]);

  // Pair shared case x repeat keys in baseline order; skipped results are not comparable.
  const pairs: Array<[number, number]> = [];
  const flips: CaseFlip[] = [];
  const stillFailing: CaseFlip[] = [];
  const newlyPassing: CaseFlip[] = [];
  let common = 0;
  let excludedQuarantined = 0;
  let onlyInBaseline = 0;
  for (const b of rowsInOrder(base)) {
    const c = cand.index.get(itemAt(base.keys, b));
    if (c === undefined) {
      onlyInBaseline++;
      continue;
    }
    const baselineStatus = itemAt(base.status, b);
    const candidateStatus = itemAt(cand.status, c);
    if (baselineStatus === 'skipped' || candidateStatus === 'skipped') continue;
    common++;
    const testId = itemAt(base.testIds, b);
    const quarantined = quarantine.has(testId);
    if (quarantined) excludedQuarantined++;
    else pairs.push([b, c]);
    const bp = baselineStatus === 'passed';
    const cp = candidateStatus === 'passed';
    if (bp && cp) continue;
    const flip: CaseFlip = {
      kind: bp ? 'newly_failing' : cp ? 'newly_passing' : 'still_failing',
      key: itemAt(base.keys, b),
      test_id: testId,
      repeat: itemAt(base.repeats, b),
      test_name: itemAt(cand.names, c) || itemAt(base.names, b),
      baseline_status: baselineStatus,
      candidate_status: candidateStatus,
      baseline_score: itemAt(base.score, b),
      candidate_score: itemAt(cand.score, c),
      quarantined,
    };
    if (flip.kind === 'newly_failing') flips.push(flip);
    else if (flip.kind === 'newly_passing') newlyPassing.push(flip);
    else stillFailing.push(flip);
  }
  flips.push(...newlyPassing, ...stillFailing);
  let onlyInCandidate = 0;
  for (const key of cand.keys) if (!base.index.has(key)) onlyInCandidate++;

  // Repeats are not independent samples of a case: when any case has several shared repeats, average per case
  // first and resample cases (a cluster bootstrap; the sign test on per-case changes generalises McNemar).
  const perCase = new Map<string, number>();
  for (const [b] of pairs) {
    const testId = itemAt(base.testIds, b);
    perCase.set(testId, (perCase.get(testId) ?? 0) + 1);
  }
  const clustered = [...perCase.values()].some((n) => n > 1);
  const ctx: MeasureContext = {
    base,
    cand,
    pairs,
    clustered,
    level,
    seed,
    resamples: options.resamples,
    bootCache: [],
  };

  const measures: PairedMeasure[] = [];
  measures.push(
    measure(ctx, {
      name: 'pass_rate',
      description: 'share of cases passed',
      direction: 'higher_is_better',
      value: (t, row) => (t.status[row] === 'passed' ? 1 : 0),
      binary: true,
    }),
    measure(ctx, {
      name: 'mean_score',
      description: 'mean case score (weighted evaluator scores)',
      direction: 'higher_is_better',
      value: (t, row) => itemAt(t.score, row),
    }),
  );
  const healthy = (t: RunTable, row: number) => itemAt(t.status, row) !== 'error';
  const optional: MeasureSpec[] = [
    {
      name: 'mean_latency',
      description: 'mean agent latency in seconds (cases that errored on either side excluded)',
      direction: 'lower_is_better',
      value: (t, row) => (healthy(t, row) ? itemAt(t.latency, row) : Number.NaN),
    },
    {
      name: 'mean_cost',
      description: 'mean cost per case in USD (errored cases excluded)',
      direction: 'lower_is_better',
      value: (t, row) => (healthy(t, row) ? itemAt(t.cost, row) : Number.NaN),
    },
    {
      name: 'mean_tokens',
      description: 'mean input + output tokens per case (errored cases excluded)',
      direction: 'lower_is_better',
      value: (t, row) => (healthy(t, row) ? itemAt(t.tokens, row) : Number.NaN),
    },
  ];
  for (const spec of optional) {
    const m = measure(ctx, spec);
    if (m.n > 0 || spec.name === 'mean_latency') measures.push(m);
  }
  const shared = [...base.evaluators.keys()].filter((name) => cand.evaluators.has(name)).sort();
  if (shared.length > 1) {
    for (const name of shared) {
      const bCol = base.evaluators.get(name) as number[];
      const cCol = cand.evaluators.get(name) as number[];
      const m = measure(ctx, {
        name: `score:${name}`,
        description: `mean score of the ${name} evaluator`,
        direction: 'higher_is_better',
        // NaN is the table's "no score" (a case this evaluator did not judge).
        value: (t, row) => (t === base ? bCol[row] : cCol[row]) ?? Number.NaN,
      });
      if (m.n > 0) measures.push(m);
    }
  }

  const gated = applyGate(measures, options);
  const byName = new Map(gated.measures.map((m) => [m.name, m]));
  return {
    baseline_id: base.header.id,
    candidate_id: cand.header.id,
    baseline_name: base.header.name,
    candidate_name: cand.header.name,
    headline: headlineOf(base.header, cand.header),
    deltas: metricDeltas(base.header.metrics, cand.header.metrics, byName),
    common_tests: common,
    newly_passed_tests: flips.filter((f) => f.kind === 'newly_passing').map((f) => f.key),
    newly_failed_tests: flips.filter((f) => f.kind === 'newly_failing').map((f) => f.key),
    still_failing_tests: flips.filter((f) => f.kind === 'still_failing').map((f) => f.key),
    only_in_baseline: onlyInBaseline,
    only_in_candidate: onlyInCandidate,
    flips,
    quarantine: [...quarantine].sort(),
    paired: {
      unit: clustered ? 'case' : 'case_repeat',
      pairs: clustered ? perCase.size : pairs.length,
      excluded_quarantined: excludedQuarantined,
      level,
      seed,
      measures: gated.measures,
    },
    gate: gated.gate,
  };
}

/** The candidate suite's headline metric when both runs computed it (else null: read pass rate as before). */
function headlineOf(
  base: { metrics: Record<string, MetricResult> },
  cand: { suite: { headline?: string | undefined }; metrics: Record<string, MetricResult> },
): string | null {
  const name = cand.suite.headline;
  return name && Object.hasOwn(base.metrics, name) && Object.hasOwn(cand.metrics, name) ? name : null;
}

function quarantineOf(metadata: Record<string, unknown> | undefined): string[] {
  const q = metadata?.quarantine;
  return Array.isArray(q) ? q.filter((x): x is string => typeof x === 'string') : [];
}

interface MeasureContext {
  base: RunTable;
  cand: RunTable;
  pairs: ReadonlyArray<readonly [number, number]>;
  clustered: boolean;
  level: number;
  seed: number;
  resamples: number | undefined;
  /** Bootstraps already computed, so a measure with the same per-pair changes (e.g. a pass/fail evaluator) is free. */
  bootCache: Array<{ diffs: Float64Array; result: ReturnType<typeof pairedBootstrap> }>;
}

interface MeasureSpec {
  name: string;
  description: string;
  direction: MetricDirection;
  /** The row's value; NaN when it has none (the pair is then left out). */
  value(table: RunTable, row: number): number;
  /** 0/1 values: tested with exact McNemar instead of a permutation test. */
  binary?: boolean;
}

function measure(ctx: MeasureContext, spec: MeasureSpec): PairedMeasure {
  const { base, cand, pairs } = ctx;
  const bVals: number[] = [];
  const cVals: number[] = [];
  if (ctx.clustered) {
    const groups = new Map<string, { b: number; c: number; n: number }>();
    for (const [b, c] of pairs) {
      const bv = spec.value(base, b);
      const cv = spec.value(cand, c);
      if (Number.isNaN(bv) || Number.isNaN(cv)) continue;
      const testId = itemAt(base.testIds, b);
      const g = groups.get(testId) ?? { b: 0, c: 0, n: 0 };
      g.b += bv;
      g.c += cv;
      g.n++;
      groups.set(testId, g);
    }
    for (const g of groups.values()) {
      bVals.push(g.b / g.n);
      cVals.push(g.c / g.n);
    }
  } else {
    for (const [b, c] of pairs) {
      const bv = spec.value(base, b);
      const cv = spec.value(cand, c);
      if (Number.isNaN(bv) || Number.isNaN(cv)) continue;
      bVals.push(bv);
      cVals.push(cv);
    }
  }
  const n = bVals.length;
  const diffs = new Float64Array(n);
  let bSum = 0;
  let cSum = 0;
  let worse = 0;
  let better = 0;
  for (const [i, cv] of cVals.entries()) {
    const bv = itemAt(bVals, i);
    const diff = cv - bv;
    diffs[i] = diff;
    bSum += bv;
    cSum += cv;
    const change = spec.direction === 'lower_is_better' ? -diff : diff;
    if (change < -1e-12) worse++;
    else if (change > 1e-12) better++;
  }
  const baselineValue = n > 0 ? bSum / n : 0;
  const candidateValue = n > 0 ? cSum / n : 0;
  const delta = candidateValue - baselineValue;
  let boot = ctx.bootCache.find((c) => sameValues(c.diffs, diffs))?.result;
  if (!boot) {
    boot = pairedBootstrap(diffs, { level: ctx.level, seed: ctx.seed, resamples: ctx.resamples });
    ctx.bootCache.push({ diffs, result: boot });
  }
  let test: string;
  let pValue: number | null;
  const details: Record<string, unknown> = {};
  if (n === 0) {
    test = 'none';
    pValue = null;
  } else if (spec.binary && !ctx.clustered) {
    // Only the discordant pairs carry information: the exact McNemar test.
    const r = mcnemarExact(worse, better);
    pValue = r.p_value;
    test = 'exact McNemar';
  } else {
    // Per-case changes (clustered repeats, or continuous values): paired sign-flip permutation test, which for
    // 0/1 outcomes without repeats reduces to McNemar.
    const r = signFlipTest(diffs, { seed: ctx.seed, resamples: ctx.resamples });
    pValue = r.p_value;
    test =
      r.method === 'exact'
        ? 'sign-flip permutation (exact)'
        : r.method === 'normal'
          ? 'sign-flip permutation (normal limit)'
          : `sign-flip permutation (${r.resamples} resamples)`;
  }
  if (n > 0) {
    details.got_worse = worse;
    details.got_better = better;
  }
  if (n > 1) {
    // Spread of the per-unit changes: sizes the "cases needed" estimate of an inconclusive gate.
    const meanDiff = (cSum - bSum) / n;
    let ss = 0;
    for (const d of diffs) ss += (d - meanDiff) ** 2;
    details.sd_delta = Math.sqrt(ss / (n - 1));
  }
  return {
    name: spec.name,
    description: spec.description,
    direction: spec.direction,
    n,
    baseline_value: baselineValue,
    candidate_value: candidateValue,
    delta,
    pct_delta: pct(delta, baselineValue),
    interval: {
      lower: boot.lower,
      upper: boot.upper,
      level: boot.level,
      method: ctx.clustered ? 'paired cluster bootstrap (cases)' : 'paired bootstrap',
      resamples: boot.resamples,
      seed: boot.seed,
    },
    test,
    p_value: pValue,
    p_adjusted: pValue,
    worse_by: 0,
    tolerance: 0,
    gated: false,
    verdict: 'unchanged',
    details,
  };
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Percentage change; null when the baseline is 0 or the result is not finite. */
export function pct(delta: number, baseline: number): number | null {
  if (baseline === 0) return null;
  const p = (delta / Math.abs(baseline)) * 100;
  return Number.isFinite(p) ? p : null;
}

/** Direction-aware deltas of the run-level metrics present in both runs (sorted by name, as in the seed). */
export function metricDeltas(
  v1: Record<string, MetricResult>,
  v2: Record<string, MetricResult>,
  measures: ReadonlyMap<string, PairedMeasure> = new Map(),
): Record<string, MetricDelta> {
  const out: Record<string, MetricDelta> = {};
  const names = [...new Set([...Object.keys(v1), ...Object.keys(v2)])].sort();
  for (const name of names) {
    const a = v1[name];
    const b = v2[name];
    if (!a || !b) continue;
    const delta = b.value - a.value;
    const direction = b.direction;
    const display = displayOf(b.display ? b : a);
    const broken = Boolean(a.error || b.error) || !Number.isFinite(delta);
    const improves =
      direction === 'higher_is_better' ? delta > EPSILON : direction === 'lower_is_better' && delta < -EPSILON;
    const regresses =
      direction === 'higher_is_better' ? delta < -EPSILON : direction === 'lower_is_better' && delta > EPSILON;
    const details: Record<string, unknown> = {};
    const m = METRIC_TO_MEASURE[name] ? measures.get(METRIC_TO_MEASURE[name]) : undefined;
    if (m) {
      details.measure = m.name;
      details.p_value = m.p_value;
    }
    if (a.interval) details.v1_interval = [a.interval.lower, a.interval.upper];
    if (b.interval) details.v2_interval = [b.interval.lower, b.interval.upper];
    if (broken) details.error = a.error ?? b.error ?? 'not a finite number';
    out[name] = {
      name,
      v1_value: a.value,
      v2_value: b.value,
      v1_formatted: a.formatted_value,
      v2_formatted: b.formatted_value,
      delta,
      pct_delta: percentChangeApplies(display) ? pct(delta, a.value) : null,
      direction,
      display,
      is_improvement: !broken && improves,
      is_regression: !broken && regresses,
      details,
    };
  }
  return out;
}
