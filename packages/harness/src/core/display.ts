import { formatSeconds, signedLike, unitOf } from './durations.js';
import type { MetricDisplay, MetricResult } from './experiment.js';

/**
 * One rule for how a metric's numbers read, given its display kind: a share changes by percentage points, an
 * ordinal level by steps (`L1→L4`), never by a percent of itself; durations and money in their own units.
 */

/** The display kind a metric declared, or the one its formatted value implies. */
export function displayOf(m: { display?: MetricDisplay | undefined; formatted_value: string }): MetricDisplay {
  if (m.display) return m.display;
  const unit = unitOf(m.formatted_value);
  return unit === 'percent' ? 'rate' : unit === 'seconds' ? 'duration' : unit === 'usd' ? 'usd' : 'number';
}

const plain = (x: number): string => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(4)).toString());

/** A bare value in its kind: `86.7%`, `L3`, `340 ms`, `$0.0012`, `0.94`. */
export function formatValueAs(display: MetricDisplay, value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (display === 'rate') return `${(value * 100).toFixed(1)}%`;
  if (display === 'level') return `L${Math.round(value)}`;
  if (display === 'duration') return formatSeconds(value);
  if (display === 'usd') return `$${Number(value.toPrecision(3))}`;
  return plain(value);
}

/** The change from v1 to v2 in the metric's kind: `L1→L4`, `-86.7 pt`, `-230 ms`, `+0.38`; `0` when none. */
export function formatChange(display: MetricDisplay, v1: number, v2: number): string {
  const delta = v2 - v1;
  if (!Number.isFinite(delta)) return '–';
  if (Math.abs(delta) < 1e-9) return '0';
  if (display === 'level') return `L${Math.round(v1)}→L${Math.round(v2)}`;
  const sample = display === 'rate' ? '0%' : display === 'duration' ? '0s' : display === 'usd' ? '$0' : '0';
  return signedLike(sample, delta, (x) => plain(Number(x.toPrecision(4))));
}

/** Whether a percent change means anything for this kind (not for a share or an ordinal). */
export function percentChangeApplies(display: MetricDisplay): boolean {
  return display !== 'rate' && display !== 'level';
}

/** The headline of a run: the metric its suite declared, or null when it declared none or it is missing. */
export function headlineMetric(
  suite: { headline?: string | undefined },
  metrics: Record<string, MetricResult>,
): MetricResult | null {
  const name = suite.headline;
  if (!name || !Object.hasOwn(metrics, name)) return null;
  return metrics[name] ?? null;
}
