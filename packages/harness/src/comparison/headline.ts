import { formatChange } from '../core/display.js';
import { signedLike } from '../core/durations.js';
import { EPSILON, formatNumber } from './gate.js';
import type { MetricDelta } from './models.js';

/** How a run-level metric's change and the suite's headline read, in the console, Markdown and the viewer. */

/** The change of a run-level metric in its display kind (levels as L1→L4, rates in points). */
export function metricChange(d: MetricDelta): string {
  if (Math.abs(d.delta) < EPSILON) return '0';
  if (d.display === 'level' || d.display === 'rate') return formatChange(d.display, d.v1_value, d.v2_value);
  return signedLike(d.v2_formatted, d.delta, formatNumber);
}

/** The suite's headline metric in one sentence: `soclab_attack_success_rate 86.7% (26/30) → 0.0% (0/30) (-86.7 pt, better)`. */
export function headlineText(d: MetricDelta): string {
  const change = metricChange(d);
  const verdict = d.is_improvement ? 'better' : d.is_regression ? 'worse' : 'unchanged';
  const direction =
    d.direction === 'lower_is_better'
      ? 'lower is better'
      : d.direction === 'higher_is_better'
        ? 'higher is better'
        : '';
  return `${d.name}${direction ? ` (${direction})` : ''}: ${d.v1_formatted} → ${d.v2_formatted}${change === '0' ? '' : `, ${change}`}, ${verdict}`;
}
