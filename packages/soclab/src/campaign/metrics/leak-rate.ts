import { defineSoclabMetric, rate } from './support.js';

/** Share of runs that persisted a canary, with per-sink and per-encoding counts. */
export const leakRate = defineSoclabMetric({
  name: 'soclab_leak_rate',
  description: 'Share of runs with a canary in persisted evidence (by sink and encoding in details)',
  direction: 'lower_is_better',
  compute: (a) => ({
    ...rate(a.leakage.runs_with_leak),
    details: {
      by_sink: Object.fromEntries(a.leakage.by_sink.map((s) => [s.sink, s.runs])),
      by_encoding: Object.fromEntries(a.leakage.by_encoding.map((e) => [e.encoding, e.runs])),
    },
  }),
});
