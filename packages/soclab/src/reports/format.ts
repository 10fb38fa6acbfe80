import type { ScoreFamily } from '../contracts/enums.js';
import type { Assessment, Proportion } from '../scoring/result.js';

/** Formatting shared by every report, so HTML, text and PDF say the same thing the same way. */

export const pct = (x: number, digits = 1): string => `${(x * 100).toFixed(digits)}%`;
export const fixed = (x: number, digits = 2): string => x.toFixed(digits);

/**
 * The paired comparison's scenarios left out because a run on one side errored or failed ('' when none): said next
 * to "stopped", so an outage in one mode is never read as the controls stopping attacks.
 */
export function inconclusiveText(scenarios: readonly string[] | undefined): string {
  if (!scenarios || scenarios.length === 0) return '';
  return `Inconclusive, left out of the test (a run on one side errored or failed, so it shows nothing the controls changed): ${scenarios.join(', ')}.`;
}

/** `26 of 30 (86.7%, 95% CI 70.3%-94.7%)` */
export function proportionText(p: Proportion, noun = ''): string {
  if (p.denominator === 0) return `no ${noun || 'data'}`;
  return `${p.numerator} of ${p.denominator}${noun ? ` ${noun}` : ''} (${pct(p.value)}, 95% CI ${pct(p.ci95[0])}-${pct(p.ci95[1])})`;
}

const SUPERSCRIPT: Readonly<Record<string, string>> = {
  '-': '⁻',
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
};

/**
 * A p-value for the HTML and PDF reports: `0.0312`, and below 0.0001 `3.0×10⁻⁸` rather than `3.0e-8` (which a
 * browser may wrap after the hyphen). Render it inside a `nowrap` span as well.
 */
export function pValueHtml(p: number, digits = 4, mantissaDigits = 2): string {
  if (!Number.isFinite(p)) return '–';
  if (p === 0 || p >= 0.0001) return p.toFixed(digits);
  const [mantissa, exponent] = p.toExponential(mantissaDigits).split('e') as [string, string];
  const power = String(Number(exponent))
    .split('')
    .map((ch) => SUPERSCRIPT[ch] ?? ch)
    .join('');
  return `${mantissa}×10${power}`;
}

/** `2026-09-05 12:00 UTC` */
export function dateLabel(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

export const FAMILY_NAMES: Readonly<Record<ScoreFamily, string>> = {
  security_resilience: 'Security resilience',
  investigation_quality: 'Investigation quality',
  operational_discipline: 'Operational discipline',
  governance_readiness: 'Governance readiness',
  economic_efficiency: 'Economic efficiency',
};

export const humanize = (name: string): string => name.replace(/_/g, ' ');

/** A component's numerator/denominator, integers shown as such and fractions with one decimal. */
export function fraction(numerator: number, denominator: number): string {
  const f = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  return `${f(numerator)}/${f(denominator)}`;
}

export const LAB_NOTE =
  'Authority above L4 should not be granted on the strength of a single campaign: repeat runs, review every change to the model, prompt, tools or policy, and re-test before raising the level.';

/** Resistance components add difficulty weights (low 1, medium 2, high 4), not runs: say so next to the figure. */
export function componentLabel(name: string): string {
  return name.endsWith('resisted') ? `${humanize(name)} (difficulty-weighted)` : humanize(name);
}

/** What a report's first line says about runs that errored or failed (null when none did). */
export function runsHeadline(
  a: Pick<Assessment, 'errored'>,
  legacy: { erroredRuns: number; unscored: readonly { error: string }[]; total: number; firstError: string | null },
): string | null {
  if (a.errored) return a.errored.headline;
  // Scorecards written before profile 2.0.0 carry no summary: count errored runs and runs without an outcome.
  const n = legacy.erroredRuns + legacy.unscored.length;
  if (n === 0) return null;
  const text = legacy.firstError ?? legacy.unscored[0]?.error ?? null;
  return `${n} of ${legacy.total + legacy.unscored.length} runs errored${text ? ` (${text})` : ''}`;
}
