// The console formats numbers and names as the server-rendered reports do (one module, pure and free of node
// imports); here a missing value shows as a dash.
import { fixed, humanize, pct as percent } from '../../src/reports/format';

export { humanize };

export const pct = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined || Number.isNaN(x) ? '–' : percent(x, digits);

export const num = (x: number | null | undefined, digits = 2): string =>
  x === null || x === undefined ? '–' : fixed(x, digits);

export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function duration(from: string | null, to: string | null): string {
  if (!from) return '–';
  const ms = (to ? Date.parse(to) : Date.now()) - Date.parse(from);
  if (!(ms >= 0)) return '–';
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const shortId = (id: string): string => id.slice(0, 8);

/** Pretty JSON for display inside a <pre> (React renders it as text, never as HTML). */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** A count or a sum for people: whole numbers as they are, anything else to one decimal, thousands grouped. */
export const amount = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x)
    ? '–'
    : x.toLocaleString('en-US', { maximumFractionDigits: Number.isInteger(x) ? 0 : 1 });
