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
