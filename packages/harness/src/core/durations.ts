/**
 * The harness's time figures, each defined once and labelled the same in the console, HTML and viewer.
 *
 * - call time: wall-clock seconds the harness measured around the agent call (`TestCaseResult.duration`);
 * - reported latency: what the agent itself reported (`output.latency`; the call time when it reports
 *   none), shown next to the call time when it differs, and what the `latency` metric averages;
 * - call time (sum): the call times of every case added up; with concurrency it exceeds the wall time;
 * - wall time: from the run's start to its end.
 */
export const TIME_LABELS = {
  callTime: 'call time',
  reportedLatency: 'reported latency',
  callTimeSum: 'call time (sum)',
  wallTime: 'wall time',
} as const;

/** Seconds for people: `340 ms` under a second, `4.21 s` under two minutes, else `2 min 17 s`. */
export function formatSeconds(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v < 1) return `${Math.round(v * 1000)} ms`;
  if (v < 120) return `${v.toFixed(2)} s`;
  const whole = Math.round(v);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** Wall time of a run from its ISO timestamps; null while it has not finished or when a stamp is unreadable. */
export function wallSeconds(
  startedAt: string | null | undefined,
  finishedAt: string | null | undefined,
): number | null {
  if (!startedAt || !finishedAt) return null;
  const ms = Date.parse(finishedAt) - Date.parse(startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

/** The agent's reported latency when it differs from the measured call time by more than display precision. */
export function reportedLatencyIfDifferent(callTime: number, latency: number | null | undefined): number | null {
  if (latency === null || latency === undefined || !Number.isFinite(latency)) return null;
  return formatSeconds(latency) === formatSeconds(callTime) ? null : latency;
}

/** The unit a metric's formatted value is written in: a share (`80.0%`), seconds (`0.32s`, `340 ms`), USD, or none. */
export function unitOf(formatted: string): 'percent' | 'seconds' | 'usd' | 'plain' {
  if (/%$/.test(formatted)) return 'percent';
  if (/\d\s?m?s$/.test(formatted)) return 'seconds';
  if (/^\$/.test(formatted)) return 'usd';
  return 'plain';
}

/**
 * A number (an interval bound) in the same unit as a metric's formatted value, so a plugin's `0.32s` metric
 * shows `[300 ms, 340 ms]`, not bare fractions. `plain` formats unitless numbers.
 */
export function formatLike(formatted: string, n: number, plain: (x: number) => string): string {
  const unit = unitOf(formatted);
  if (unit === 'percent') return `${(n * 100).toFixed(1)}%`;
  if (unit === 'seconds') return formatSeconds(n);
  if (unit === 'usd') return `$${Number(n.toPrecision(3))}`;
  return plain(n);
}

/**
 * A formatted magnitude with the sign of `delta`, and none when the digits shown are all zero: a delta that rounds
 * to zero (`-0.00 s`, `-0 ms`, `-0.0%`) would claim a direction the figure cannot show.
 */
export function signText(delta: number, magnitude: string): string {
  if (!/[1-9]/.test(magnitude)) return magnitude;
  return `${delta > 0 ? '+' : delta < 0 ? '-' : ''}${magnitude}`;
}

/** A change in a metric's unit, signed: `-230 ms`, `+5.0 pt` (points of a share), `+$0.0012`. */
export function signedLike(formatted: string, delta: number, plain: (x: number) => string): string {
  const abs = Math.abs(delta);
  if (unitOf(formatted) === 'percent') return signText(delta, `${(abs * 100).toFixed(1)} pt`);
  return signText(delta, formatLike(formatted, abs, plain));
}
