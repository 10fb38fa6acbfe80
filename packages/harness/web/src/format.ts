import { formatSeconds, signText } from '../../src/core/durations.js';

export function pct(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '–' : `${(v * 100).toFixed(digits)}%`;
}

export function num(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

export function signed(v: number | null | undefined, digits = 3): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return signText(v, Math.abs(v).toFixed(digits));
}

/** Seconds, with the same formatter as the console and HTML reports (one definition, core/durations.ts). */
export function secs(v: number | null | undefined): string {
  return formatSeconds(v);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function pValue(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** Pretty JSON for display (React escapes it; never injected as HTML). */
export function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Items with stable React keys for lists whose order is their identity (trajectories, evaluator lists). */
export function keyed<T>(items: readonly T[], prefix = 'k'): { key: string; item: T; index: number }[] {
  return items.map((item, index) => ({ key: `${prefix}${index}`, item, index }));
}
