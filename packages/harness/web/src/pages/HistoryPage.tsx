import { useCallback, useEffect, useState } from 'react';
import { type FlakyReport, getFlaky, getHistory, getSuites, type HistoryPoint, type SuiteSummary } from '../api';
import { LineChart } from '../components/LineChart';
import { num, pct, signed, when } from '../format';
import { useLiveEvents } from '../live';
import { href } from '../router';

const GLYPH = { pass: '✓', fail: '✗', mixed: '±' } as const;

/** A suite over time: one metric's history with intervals, and the cases that flip between runs. */
export function HistoryPage({ suite, metric: wanted }: { suite: string; metric: string | null }) {
  const [suiteInfo, setSuiteInfo] = useState<SuiteSummary | null>(null);
  const [points, setPoints] = useState<HistoryPoint[] | null>(null);
  const [flaky, setFlaky] = useState<FlakyReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const metric =
    wanted ??
    (suiteInfo?.metrics.includes('success_rate') ? 'success_rate' : (suiteInfo?.metrics[0] ?? 'success_rate'));

  const load = useCallback(() => {
    getSuites()
      .then((all) => setSuiteInfo(all.find((s) => s.suite_name === suite) ?? null))
      .catch((e: Error) => setError(e.message));
    getFlaky(suite)
      .then(setFlaky)
      .catch(() => {});
  }, [suite]);
  useEffect(load, [load]);
  useEffect(() => {
    getHistory(suite, metric)
      .then(setPoints)
      .catch((e: Error) => setError(e.message));
  }, [suite, metric]);
  useLiveEvents(() => {
    load();
    getHistory(suite, metric)
      .then(setPoints)
      .catch(() => {});
  });

  return (
    <section>
      <nav className="crumbs">
        <a href="#/">Runs</a> / <a href={href([], { suite })}>{suite}</a> / <b>history</b>
      </nav>
      <div className="toolbar">
        <h1>{suite}</h1>
        <label>
          Metric{' '}
          <select
            value={metric}
            onChange={(e) => {
              window.location.hash = href(['history', suite], { metric: e.target.value });
            }}
          >
            {(suiteInfo?.metrics.length ? suiteInfo.metrics : [metric]).map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {suiteInfo && <span className="muted">{suiteInfo.runs} runs</span>}
      </div>
      {error && <div className="error">{error}</div>}
      {points && points.length === 0 && <div className="empty">No run of this suite recorded {metric}.</div>}
      {points && points.length > 0 && (
        <>
          <LineChart
            metric={metric}
            points={points.map((p) => ({
              label: `${p.agent_label ?? p.id} (${new Date(p.started_at).toLocaleDateString()})`,
              value: p.value,
              lower: p.lower,
              upper: p.upper,
            }))}
          />
          <table className="table" aria-label="metric history">
            <thead>
              <tr>
                <th>Run</th>
                <th>Started</th>
                <th>Agent</th>
                <th className="num">{metric}</th>
                <th className="num">Interval</th>
                <th className="num">Change</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p, i) => (
                <tr key={p.id}>
                  <td>
                    <a href={href(['runs', p.id])}>{p.id}</a>
                  </td>
                  <td>{when(p.started_at)}</td>
                  <td>{p.agent_label ?? p.agent_version ?? '–'}</td>
                  <td className="num">{p.formatted_value}</td>
                  <td className="num">
                    {p.lower !== null && p.upper !== null ? `[${num(p.lower)}, ${num(p.upper)}]` : '–'}
                  </td>
                  <td className="num">
                    <ChangeFromPrevious previous={points[i - 1]} point={p} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Flaky cases</h2>
      {flaky && flaky.flaky.length === 0 && (
        <p className="muted">
          No flaky case over the last {flaky.runs_considered} runs ({flaky.cases_considered} cases; a case needs 3
          runs).
        </p>
      )}
      {flaky && flaky.flaky.length > 0 && (
        <table className="table" aria-label="flaky cases">
          <thead>
            <tr>
              <th>Case</th>
              <th className="num">Runs</th>
              <th className="num">Pass rate</th>
              <th className="num">Flips</th>
              <th className="num">Flip rate</th>
              <th>History (old → new)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {flaky.flaky.map((f) => (
              <tr key={f.test_id}>
                <td title={f.test_name}>{f.test_id}</td>
                <td className="num">{f.runs}</td>
                <td className="num">
                  {pct(f.pass_rate, 0)} ({f.passes}/{f.executions})
                </td>
                <td className="num">{f.flips}</td>
                <td className="num">{pct(f.flip_rate, 0)}</td>
                <td className="history-glyphs">
                  {f.history.map((h) => (
                    <a
                      key={h.id}
                      href={href(['runs', h.id, 'cases', f.test_id, 0])}
                      className={`glyph glyph-${h.outcome}`}
                      title={`${h.id}: ${h.passes}/${h.executions}`}
                    >
                      {GLYPH[h.outcome]}
                    </a>
                  ))}
                </td>
                <td>{f.quarantined && <span className="badge quarantined">quarantined</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The change from the run before (a link comparing the two); nothing for the first run. */
function ChangeFromPrevious({ previous, point }: { previous: HistoryPoint | undefined; point: HistoryPoint }) {
  if (!previous) return null;
  return (
    <a href={href(['compare', previous.id, point.id])} title="compare with the previous run">
      {signed(point.value - previous.value)}
    </a>
  );
}
