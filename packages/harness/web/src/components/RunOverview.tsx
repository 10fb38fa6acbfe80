import { useEffect, useState } from 'react';
import { displayOf, formatValueAs } from '../../../src/core/display.js';
import { formatLike } from '../../../src/core/durations.js';
import type { MetricResult } from '../../../src/core/experiment.js';
import { Histogram, StatusBar, TagBars } from '../../../src/reporters/html/charts.js';
import { type CaseSummary, getCases, type RunDetail } from '../api';
import { num } from '../format';

/** The run's folder name (what people named or recognise), from its location; null for a loose file. */
export function folderName(location: string | null): string | null {
  if (!location) return null;
  const parts = location.split(/[\\/]/).filter(Boolean);
  const last = parts.at(-1) ?? null;
  return last && /\.(jsonl?|json)$/.test(last) ? (parts.at(-2) ?? last) : last;
}

/** The threshold gate: passed, failed (with each failed threshold), or no thresholds declared. */
export function GateVerdict({ run }: { run: RunDetail }) {
  const t = run.header.thresholds;
  if (!t)
    return (
      <div className="run-gate run-gate-none" data-testid="gate-verdict">
        No thresholds declared: this run has no gate.
      </div>
    );
  if (t.passed)
    return (
      <div className="run-gate run-gate-pass" data-testid="gate-verdict">
        Gate passed: every threshold met.
      </div>
    );
  return (
    <div className="run-gate run-gate-fail" data-testid="gate-verdict">
      <b>{`Gate failed: ${t.violations.length} threshold${t.violations.length === 1 ? '' : 's'} not met`}</b>
      <ul data-testid="failed-thresholds">
        {t.violations.map((v) => (
          <li key={`${v.metric_name}-${v.condition}`}>{v.message}</li>
        ))}
      </ul>
    </div>
  );
}

/** A metric's interval in its display kind (a rate as %, a duration in s/ms). */
export function intervalText(m: MetricResult): string {
  if (!m.interval) return '';
  const kind = displayOf(m);
  const f = (x: number) =>
    kind === 'rate' || kind === 'level' ? formatValueAs(kind, x) : formatLike(m.formatted_value, x, (y) => num(y));
  return `${Math.round(m.interval.level * 100)}% CI [${f(m.interval.lower)}, ${f(m.interval.upper)}]`;
}

/** The suite's headline metric, as the first card (null when the suite declared none). */
export function HeadlineCard({ run }: { run: RunDetail }) {
  const name = run.header.suite.headline;
  const m = name ? run.header.metrics[name] : undefined;
  if (!name || !m) return null;
  return (
    <div className="card card-headline" data-testid="headline">
      <div className="card-label">{`Headline: ${name}`}</div>
      <div className="card-value">{m.formatted_value}</div>
      <div className="muted">
        {m.direction.replaceAll('_', ' ')}
        {m.interval ? ` · ${intervalText(m)}` : ''}
      </div>
    </div>
  );
}

const bins = (values: number[], lo: number, hi: number, n = 10): number[] => {
  const out = new Array<number>(n).fill(0);
  const span = hi - lo || 1;
  for (const v of values) {
    const bin = Math.min(n - 1, Math.max(0, Math.floor(((v - lo) / span) * n)));
    out[bin] = (out[bin] ?? 0) + 1;
  }
  return out;
};

/** Why a case failed, as a grouping key: its error (numbers and quoted text folded), else the evaluators it failed. */
export function failureReason(c: CaseSummary): string {
  if (c.error) {
    const pattern = c.error
      .replace(/(['"`]).*?\1/g, '…')
      .replace(/\d+(\.\d+)?/g, 'N')
      .slice(0, 120);
    return `error: ${pattern}`;
  }
  const failed = c.evaluations.filter((e) => !e.passed).map((e) => e.evaluator);
  return failed.length > 0 ? `failed ${failed.join(' + ')}` : 'failed (no evaluator failed: score below the bar)';
}

const SAMPLE = 2000;

/** Charts like the static report's (outcomes, score and call-time histograms, pass rate per tag) and failures grouped by reason. */
export function RunOverview({ run, onReason }: { run: RunDetail; onReason: (caseIds: string) => void }) {
  const [cases, setCases] = useState<CaseSummary[] | null>(null);
  const [failing, setFailing] = useState<CaseSummary[] | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    const pages = async (params: Record<string, string>, cap: number) => {
      const out: CaseSummary[] = [];
      while (out.length < cap) {
        const page = await getCases(run.id, { ...params, offset: out.length, limit: 500 }, ctl.signal);
        out.push(...page.items);
        if (page.items.length === 0 || out.length >= page.total) break;
      }
      return out;
    };
    pages({}, SAMPLE)
      .then(setCases)
      .catch(() => setCases([]));
    pages({ status: 'failed,error' }, SAMPLE)
      .then(setFailing)
      .catch(() => setFailing([]));
    return () => ctl.abort();
  }, [run.id]);

  const scored = (cases ?? []).filter((c) => c.status !== 'skipped');
  const durations = scored.map((c) => c.duration);
  const maxDuration = Math.max(0, ...durations);
  const groups = new Map<string, CaseSummary[]>();
  for (const c of failing ?? []) {
    const key = failureReason(c);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const sorted = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  return (
    <>
      <div className="charts" data-testid="run-charts">
        <StatusBar counts={{ passed: run.passed, failed: run.failed, error: run.errored, skipped: run.skipped }} />
        {cases && scored.length > 0 ? (
          <>
            <Histogram
              title="Score"
              bins={bins(
                scored.map((c) => c.score),
                0,
                1,
              )}
              min={0}
              max={1}
            />
            <Histogram title="Call time" bins={bins(durations, 0, maxDuration)} min={0} max={maxDuration} unit=" s" />
          </>
        ) : null}
        {run.tags.length > 0 ? (
          <TagBars tags={run.tags.slice(0, 12).map((t) => ({ tag: t.tag, passed: t.passed, total: t.cases }))} />
        ) : null}
        {cases && cases.length < run.total ? (
          <div className="muted small">{`Histograms from the first ${cases.length} of ${run.total} cases.`}</div>
        ) : null}
      </div>
      {sorted.length > 0 ? (
        <section className="failure-groups" data-testid="failure-groups">
          <h2>{`Failures by reason (${failing?.length ?? 0}${(failing?.length ?? 0) < run.failed + run.errored ? ` of ${run.failed + run.errored}` : ''})`}</h2>
          <table className="grid-table">
            <thead>
              <tr>
                <th className="num">Cases</th>
                <th>Reason</th>
                <th>Examples</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map(([reason, list]) => (
                <tr key={reason}>
                  <td className="num">{list.length}</td>
                  <td className="mono small">{reason}</td>
                  <td className="small">
                    <button type="button" className="link" onClick={() => onReason(list[0]?.test_id ?? '')}>
                      {list
                        .slice(0, 3)
                        .map((c) => c.test_id)
                        .join(', ')}
                    </button>
                    {list.length > 3 ? ` and ${list.length - 3} more` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </>
  );
}
