import type { MetricDirection } from '../core/experiment.js';
import { itemAt } from '../core/item-at.js';
import { holmAdjust } from '../stats/paired.js';
import type {
  GateInconclusive,
  GateMode,
  GateOutcome,
  MeasureVerdict,
  PairedMeasure,
  RegressionViolation,
} from './models.js';
import { pairedUnitsNeeded } from './power-needed.js';

/**
 * How much worse a measure may get before the gate cares. A number is absolute, in the measure's units
 * (0.02 = two points of pass rate); a string ending in `%` is relative to the baseline value ("10%").
 */
export type ToleranceValue = number | `${number}%`;

/**
 * A single value applies to the rate-like measures (`pass_rate`, `mean_score`, `score:*`); a map sets
 * tolerances per measure, with `*` as the default for rate-like measures.
 */
export type ToleranceSpec = ToleranceValue | Readonly<Record<string, ToleranceValue>>;

export interface GateOptions {
  /** Significance level for the Holm-corrected tests; default 0.05. */
  alpha?: number;
  /** Gate on point estimates only (no significance needed), like the seed's RegressionDetector. */
  strict?: boolean;
  tolerance?: ToleranceSpec;
  /** Measures that can fail the gate: names, `score:*` for every evaluator, or `all`. Default pass_rate, mean_score. */
  gate?: readonly string[];
  /**
   * The practical bound: a gated measure worse by more than this never passes. If the drop is not significant
   * (too few cases to tell), the gate is "inconclusive" instead of "passed". Same syntax as `tolerance`;
   * default 0.1 (ten points) for the rate-like measures; `false` turns it off.
   */
  maxDrop?: ToleranceSpec | false;
}

/** Default practical bound for rate-like measures: a ten-point drop in pass rate or mean score. */
export const DEFAULT_MAX_DROP = 0.1;

export const DEFAULT_GATED_MEASURES: readonly string[] = ['pass_rate', 'mean_score'];
export const DEFAULT_ALPHA = 0.05;
/** Differences smaller than this are "unchanged" (as in the seed's comparator). */
export const EPSILON = 1e-6;

/** Parse a CLI tolerance: `0.02`, `5%`, or `pass_rate=0.02,mean_latency=10%` (`*=` sets the default). */
export function parseTolerance(text: string): ToleranceSpec {
  const trimmed = text.trim();
  if (!trimmed.includes('=')) return parseToleranceValue(trimmed, 'tolerance');
  const map: Record<string, ToleranceValue> = {};
  for (const part of trimmed.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    if (eq < 0 || name === '') throw new Error(`tolerance: expected name=value in '${part}'`);
    map[name] = parseToleranceValue(part.slice(eq + 1).trim(), `tolerance for ${name}`);
  }
  return map;
}

function parseToleranceValue(text: string, what: string): ToleranceValue {
  const pct = text.endsWith('%');
  const n = Number(pct ? text.slice(0, -1) : text);
  if (text === '' || text === '%' || !Number.isFinite(n) || n < 0) {
    throw new Error(`${what}: expected a non-negative number or percentage, got '${text}'`);
  }
  return pct ? (`${n}%` as `${number}%`) : n;
}

function isRateLike(name: string): boolean {
  return name === 'pass_rate' || name === 'mean_score' || name.startsWith('score:');
}

/** The absolute tolerance for a measure, given its baseline value. */
export function toleranceFor(spec: ToleranceSpec | undefined, name: string, baseline: number): number {
  let value: ToleranceValue | undefined;
  if (spec === undefined) value = undefined;
  else if (typeof spec === 'number' || typeof spec === 'string') value = isRateLike(name) ? spec : undefined;
  else
    value =
      spec[name] ??
      (name.startsWith('score:') ? spec['score:*'] : undefined) ??
      (isRateLike(name) ? spec['*'] : undefined);
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  return (Math.abs(baseline) * Number(value.slice(0, -1))) / 100;
}

/** True when `name` is selected by the gate list. */
export function isGated(name: string, gate: readonly string[]): boolean {
  return gate.some((g) => g === 'all' || g === name || (g === 'score:*' && name.startsWith('score:')));
}

/** How much worse the candidate is (positive = worse), given the direction. Neutral measures never get worse. */
export function worseBy(delta: number, direction: MetricDirection): number {
  if (direction === 'higher_is_better') return -delta;
  if (direction === 'lower_is_better') return delta;
  return 0;
}

/**
 * Decide every measure's verdict and the gate. A gated measure fails only when it is worse by more than its
 * tolerance AND (unless strict) its Holm-adjusted p-value is below alpha. Holm runs over the gated measures
 * only, so reporting more measures never weakens the gate. Returns new measure objects.
 */
export function applyGate(
  measures: readonly PairedMeasure[],
  options: GateOptions = {},
): { measures: PairedMeasure[]; gate: GateOutcome } {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const mode: GateMode = options.strict ? 'strict' : 'significance';
  const gateList = options.gate && options.gate.length > 0 ? options.gate : DEFAULT_GATED_MEASURES;
  const gatedFlags = measures.map((m) => isGated(m.name, gateList) && m.direction !== 'neutral');
  const adjusted = holmAdjust(measures.map((m, i) => (gatedFlags[i] ? m.p_value : null)));
  const violations: RegressionViolation[] = [];
  const inconclusive: GateInconclusive[] = [];
  const gatedCount = gatedFlags.filter(Boolean).length;
  const maxDropSpec = options.maxDrop === false ? undefined : (options.maxDrop ?? DEFAULT_MAX_DROP);
  const out = measures.map((m, i) => {
    const gated = itemAt(gatedFlags, i);
    const pAdj = gated ? itemAt(adjusted, i) : m.p_value;
    const tolerance = toleranceFor(options.tolerance, m.name, m.baseline_value);
    const worse = worseBy(m.delta, m.direction);
    const significant = pAdj !== null && pAdj < alpha;
    let verdict: MeasureVerdict;
    if (m.n === 0) verdict = 'no_data';
    else if (worse > tolerance + EPSILON) {
      verdict = options.strict || significant ? 'regression' : 'worse_not_significant';
    } else if (worse > EPSILON) verdict = 'within_tolerance';
    else if (worse < -EPSILON) verdict = options.strict || significant ? 'improvement' : 'better_not_significant';
    else verdict = 'unchanged';
    const measure: PairedMeasure = { ...m, p_adjusted: pAdj, worse_by: worse, tolerance, gated, verdict };
    if (gated && verdict === 'regression') violations.push(violationFor(measure, alpha, mode));
    // A big drop the test could not confirm is not a pass: too few cases cannot vouch for safety.
    const bound = maxDropSpec === undefined ? undefined : boundFor(maxDropSpec, m.name, m.baseline_value);
    if (gated && verdict === 'worse_not_significant' && bound !== undefined && worse > bound + EPSILON) {
      inconclusive.push(inconclusiveFor(measure, bound, alpha / Math.max(1, gatedCount)));
    }
    // No paired cases (runs of different suites, an empty run) is no evidence: it used to read "Gate passed".
    if (gated && verdict === 'no_data') inconclusive.push(noDataFor(measure, bound ?? 0));
    return measure;
  });
  const status = violations.length > 0 ? 'failed' : inconclusive.length > 0 ? 'inconclusive' : 'passed';
  return {
    measures: out,
    gate: {
      mode,
      alpha,
      passed: status === 'passed',
      status,
      gated: out.filter((m) => m.gated).map((m) => m.name),
      violations,
      inconclusive,
    },
  };
}

/** The practical bound for a measure, or undefined when none applies (non-rate measures without an explicit one). */
function boundFor(spec: ToleranceSpec, name: string, baseline: number): number | undefined {
  const applies =
    typeof spec === 'number' || typeof spec === 'string'
      ? isRateLike(name)
      : spec[name] !== undefined ||
        (name.startsWith('score:') && spec['score:*'] !== undefined) ||
        (isRateLike(name) && spec['*'] !== undefined);
  return applies ? toleranceFor(spec, name, baseline) : undefined;
}

function noDataFor(m: PairedMeasure, bound: number): GateInconclusive {
  return {
    measure: m.name,
    worse_by: 0,
    bound,
    n: 0,
    p_value: null,
    units_needed: null,
    message:
      `${m.name}: no paired cases to compare (the runs share no case run that is neither skipped nor ` +
      `quarantined, or the measure was not recorded on either side). Not a pass: compare two runs of the same suite.`,
  };
}

function inconclusiveFor(m: PairedMeasure, bound: number, alphaPerMeasure: number): GateInconclusive {
  const f = (x: number) => formatNumber(x);
  const gotWorse = Number(m.details.got_worse ?? 0);
  const gotBetter = Number(m.details.got_better ?? 0);
  const sd = typeof m.details.sd_delta === 'number' ? m.details.sd_delta : null;
  const needed = pairedUnitsNeeded({
    n: m.n,
    drop: m.worse_by,
    gotWorse,
    gotBetter,
    sdDelta: sd,
    binary: m.test === 'exact McNemar',
    alpha: alphaPerMeasure,
  });
  const neededText = Number.isFinite(needed) ? `about ${needed}` : 'more';
  return {
    measure: m.name,
    worse_by: m.worse_by,
    bound,
    n: m.n,
    p_value: m.p_adjusted,
    units_needed: Number.isFinite(needed) ? needed : null,
    message:
      `${m.name} went from ${f(m.baseline_value)} to ${f(m.candidate_value)}: worse by ${f(m.worse_by)}, more than ` +
      `the practical bound ${f(bound)}, but ${m.n} paired ${m.n === 1 ? 'unit is' : 'units are'} too few to call it ` +
      `significant (p = ${formatP(m.p_adjusted)}). Not a pass: ${neededText} paired cases would be needed to ` +
      `detect a drop this size (80% power); add cases or --repeat, or check the cases listed as newly failing.`,
  };
}

function violationFor(m: PairedMeasure, alpha: number, mode: GateMode): RegressionViolation {
  const f = (x: number) => formatNumber(x);
  const ci = `${Math.round(m.interval.level * 100)}% CI [${f(m.interval.lower)}, ${f(m.interval.upper)}]`;
  const why =
    mode === 'strict'
      ? 'strict mode gates on the point estimate'
      : `significant: Holm-adjusted p = ${formatP(m.p_adjusted)} < alpha ${alpha}`;
  return {
    metric_name: m.name,
    condition: 'max_worsening',
    threshold_value: m.tolerance,
    actual_value: m.worse_by,
    p_value: m.p_adjusted,
    message:
      `${m.name} went from ${f(m.baseline_value)} to ${f(m.candidate_value)} (delta ${f(m.delta)}, ${ci}) ` +
      `on ${m.n} paired ${m.n === 1 ? 'unit' : 'units'}: worse by ${f(m.worse_by)}, more than the tolerance ` +
      `${f(m.tolerance)}; ${why}`,
  };
}

/** Four significant digits, no exponent for everyday magnitudes. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 1e6 || abs < 1e-4) return x.toExponential(2);
  return Number(x.toPrecision(4)).toString();
}

/** p-values as people read them: `<0.0001` below that, otherwise 2 significant digits. */
export function formatP(p: number | null): string {
  if (p === null) return '—';
  if (p < 1e-4) return '<0.0001';
  return Number(p.toPrecision(2)).toString();
}
