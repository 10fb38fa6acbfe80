import { useCallback, useEffect, useState } from 'react';
import { TIME_LABELS, wallSeconds } from '../../../src/core/durations.js';
import { getRuns, getSuites, type Page, type RunSummary, type SuiteSummary } from '../api';
import { PassBar, StateBadge } from '../components/Badges';
import { num, secs, when } from '../format';
import { useLiveEvents } from '../live';
import { href } from '../router';

/** All stored runs, newest first, with their headline metrics; pick two to compare. */
export function RunList({ suite }: { suite: string | null }) {
  const [page, setPage] = useState<Page<RunSummary> | null>(null);
  const [suites, setSuites] = useState<SuiteSummary[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    getRuns({ suite: suite ?? undefined, limit: 200 })
      .then((p) => {
        setPage(p);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
    getSuites()
      .then(setSuites)
      .catch(() => {});
  }, [suite]);
  useEffect(load, [load]);
  useLiveEvents(load);

  const toggle = (id: string) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s.slice(-1), id]));
  const compareHref = () => {
    const runs = (page?.items ?? []).filter((r) => selected.includes(r.id));
    runs.sort((a, b) => a.started_at.localeCompare(b.started_at)); // older run is the baseline
    const [baseline, candidate] = runs;
    // The selection can name a run no longer on this page: then there is nothing to compare here.
    return baseline && candidate ? href(['compare', baseline.id, candidate.id]) : null;
  };
  const compareTarget = selected.length === 2 ? compareHref() : null;

  return (
    <section>
      <div className="toolbar">
        <h1>Runs</h1>
        <label>
          Suite{' '}
          <select
            value={suite ?? ''}
            onChange={(e) => {
              window.location.hash = e.target.value ? href([], { suite: e.target.value }) : '#/';
            }}
          >
            <option value="">all suites</option>
            {suites.map((s) => (
              <option key={s.suite_name} value={s.suite_name}>
                {s.suite_name} ({s.runs})
              </option>
            ))}
          </select>
        </label>
        {suite && <a href={href(['history', suite])}>history of {suite}</a>}
        <span className="spacer" />
        {compareTarget ? (
          <a className="button" href={compareTarget}>
            Compare selected
          </a>
        ) : (
          <span className="muted">select two runs to compare</span>
        )}
      </div>
      {error && <div className="error">{error}</div>}
      {page && page.items.length === 0 && (
        <div className="empty">
          No runs stored yet. Run a suite with <code>harness run suite.yaml</code>; it appears here as it runs.
        </div>
      )}
      {page && page.items.length > 0 && (
        <table className="table runs">
          <thead>
            <tr>
              <th aria-label="select" />
              <th>Run</th>
              <th>Started</th>
              <th>Suite</th>
              <th>Agent</th>
              <th>State</th>
              <th className="num">Cases</th>
              <th>Pass rate</th>
              <th className="num">Score</th>
              <th>Metrics</th>
              <th className="num" title="from the run's start to its end">
                {TIME_LABELS.wallTime}
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`select ${r.id}`}
                    checked={selected.includes(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td>
                  <a href={href(['runs', r.id])}>{r.id}</a>
                </td>
                <td>{when(r.started_at)}</td>
                <td>
                  <a href={href(['history', r.suite_name])}>{r.suite_name}</a>
                </td>
                <td>{r.agent_label ?? r.agent_version ?? r.agent_adapter}</td>
                <td>
                  <StateBadge state={r.state} idle={r.idle_seconds} />
                  {r.thresholds_passed === false && <span className="badge status-failed">gate failed</span>}
                </td>
                <td className="num">{r.total}</td>
                <td>
                  <PassBar value={r.pass_rate} />
                </td>
                <td className="num">{num(r.mean_score)}</td>
                <td className="metrics-cell">
                  {Object.values(r.metrics)
                    .slice(0, 4)
                    .map((m) => (
                      <span
                        key={m.name}
                        className="metric-chip"
                        title={m.lower !== null ? `[${num(m.lower)}, ${num(m.upper)}]` : ''}
                      >
                        {m.name} <b>{m.formatted_value}</b>
                      </span>
                    ))}
                </td>
                <td className="num" title={`${TIME_LABELS.callTimeSum} ${secs(r.total_duration)}`}>
                  {secs(wallSeconds(r.started_at, r.finished_at))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && page.total > page.items.length && (
        <p className="muted">
          Showing the newest {page.items.length} of {page.total} runs.
        </p>
      )}
    </section>
  );
}
