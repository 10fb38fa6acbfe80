import { useCallback, useEffect, useMemo, useState } from 'react';
import { headlineText, metricChange } from '../../../src/comparison/headline.js';
import { type CaseDelta, type ComparePayload, getCompare, getCompareCases, getRuns, type RunSummary } from '../api';
import { VirtualGrid } from '../components/VirtualGrid';
import { num, pct, pValue, signed, when } from '../format';
import { useLiveEvents } from '../live';
import { href } from '../router';

const CHANGES = [
  ['regressed', 'newly failing'],
  ['fixed', 'newly passing'],
  ['still_failing', 'still failing'],
  ['still_passing', 'still passing'],
  ['only_baseline', 'only in baseline'],
  ['only_candidate', 'only in candidate'],
] as const;
const COLUMNS = '130px minmax(180px, 2fr) 110px 110px 90px 90px';

function RunPicker({
  label,
  value,
  runs,
  onPick,
}: {
  label: string;
  value: string;
  runs: RunSummary[];
  onPick(id: string): void;
}) {
  return (
    <label className="picker">
      {label}{' '}
      <select value={value} onChange={(e) => onPick(e.target.value)}>
        {runs.every((r) => r.id !== value) && <option value={value}>{value}</option>}
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {r.id} · {r.agent_label ?? r.agent_version ?? r.agent_adapter} · {when(r.started_at)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Two runs side by side: metric deltas, paired statistics and the gate, then per-case deltas. */
export function ComparePage({
  baseline,
  candidate,
  query,
}: {
  baseline: string;
  candidate: string;
  query: URLSearchParams;
}) {
  const [data, setData] = useState<ComparePayload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [refresh, setRefresh] = useState(0);
  const change = query.get('change') ?? 'regressed,fixed,still_failing,only_baseline,only_candidate';

  const load = useCallback(() => {
    getCompare(baseline, candidate)
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [baseline, candidate]);
  useEffect(load, [load]);
  useLiveEvents((e) => {
    if (e.id === data?.baseline.id || e.id === data?.candidate.id) {
      load();
      setRefresh((n) => n + 1);
    }
  });
  useEffect(() => {
    if (!data) return;
    getRuns({ suite: data.candidate.suite_name, limit: 200 })
      .then((p) => setRuns(p.items))
      .catch(() => {});
  }, [data]);

  const fetchPage = useCallback(
    (offset: number, limit: number, signal: AbortSignal) =>
      getCompareCases({ baseline, candidate, change, offset, limit }, signal),
    [baseline, candidate, change],
  );
  const resetKey = useMemo(() => JSON.stringify([baseline, candidate, change]), [baseline, candidate, change]);

  if (error) return <div className="error">{error}</div>;
  if (!data) return <div className="muted">comparing…</div>;
  const { comparison: cmp, counts } = data;
  const active = new Set(change.split(',').filter(Boolean));
  const go = (b: string, c: string, ch = change) => {
    window.location.hash = href(['compare', b, c], { change: ch });
  };

  return (
    <section>
      <nav className="crumbs">
        <a href="#/">Runs</a> / <a href={href(['history', data.candidate.suite_name])}>{data.candidate.suite_name}</a> /{' '}
        <b>compare</b>
      </nav>
      <h1>Comparison</h1>
      <div className="toolbar">
        <RunPicker label="Baseline" value={data.baseline.id} runs={runs} onPick={(id) => go(id, data.candidate.id)} />
        <button type="button" title="swap" onClick={() => go(data.candidate.id, data.baseline.id)}>
          ⇄
        </button>
        <RunPicker label="Candidate" value={data.candidate.id} runs={runs} onPick={(id) => go(data.baseline.id, id)} />
      </div>
      {cmp?.headline && cmp.deltas[cmp.headline] ? (
        <div className="headline-banner" data-testid="compare-headline">
          <b>Headline</b> {headlineText(cmp.deltas[cmp.headline] as NonNullable<(typeof cmp.deltas)[string]>)}
          <div className="muted small">
            The suite declares this as the figure to read first; the pass rates below are the harness's own (cases whose
            evaluators all passed).
          </div>
        </div>
      ) : null}
      <div className="cards">
        <div className="card">
          <div className="card-label">Baseline</div>
          <div className="card-value">
            <a href={href(['runs', data.baseline.id])}>{pct(data.baseline.pass_rate)}</a>
          </div>
          <div className="muted">
            {data.baseline.id} · {data.baseline.total} cases
          </div>
        </div>
        <div className="card">
          <div className="card-label">Candidate</div>
          <div className="card-value">
            <a href={href(['runs', data.candidate.id])}>{pct(data.candidate.pass_rate)}</a>
          </div>
          <div className="muted">
            {data.candidate.id} · {data.candidate.total} cases
          </div>
        </div>
        {cmp && (
          <div className={`card gate ${cmp.gate.passed ? 'gate-pass' : 'gate-fail'}`}>
            <div className="card-label">Regression gate ({cmp.gate.mode})</div>
            <div className="card-value">
              {cmp.gate.passed
                ? 'no significant regression'
                : cmp.gate.status === 'inconclusive'
                  ? 'inconclusive: big drop, too few cases'
                  : 'regression'}
            </div>
            <div className="muted">
              α = {cmp.gate.alpha} · {cmp.paired.pairs} paired {cmp.paired.unit === 'case' ? 'cases' : 'case runs'}
              {cmp.paired.excluded_quarantined ? ` · ${cmp.paired.excluded_quarantined} quarantined excluded` : ''}
            </div>
          </div>
        )}
      </div>
      {data.comparison_error && <div className="error">Statistics unavailable: {data.comparison_error}</div>}
      {cmp && cmp.gate.violations.length > 0 && (
        <ul className="violations">
          {cmp.gate.violations.map((v) => (
            <li key={v.metric_name + v.condition}>{v.message}</li>
          ))}
        </ul>
      )}
      {cmp && (cmp.gate.inconclusive ?? []).length > 0 && (
        <ul className="violations">
          {cmp.gate.inconclusive.map((v) => (
            <li key={`inconclusive-${v.measure}`}>{v.message}</li>
          ))}
        </ul>
      )}

      {cmp && Object.keys(cmp.deltas).length > 0 && (
        <>
          <h2>Metrics</h2>
          <table className="table">
            <thead>
              <tr>
                <th>Metric</th>
                <th className="num">Baseline</th>
                <th className="num">Candidate</th>
                <th className="num">Δ</th>
                <th className="num">Δ %</th>
                <th>Change</th>
              </tr>
            </thead>
            <tbody>
              {Object.values(cmp.deltas).map((d) => (
                <tr key={d.name}>
                  <td>{d.name}</td>
                  <td className="num">{d.v1_formatted}</td>
                  <td className="num">{d.v2_formatted}</td>
                  <td className="num">{metricChange(d)}</td>
                  <td className="num">{d.pct_delta === null ? '–' : `${signed(d.pct_delta, 1)}%`}</td>
                  <td>
                    {d.is_regression ? (
                      <span className="badge status-failed">worse</span>
                    ) : d.is_improvement ? (
                      <span className="badge status-passed">better</span>
                    ) : (
                      <span className="muted">same</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      {cmp && (
        <>
          <h2>Paired statistics</h2>
          <table className="table" aria-label="paired statistics">
            <thead>
              <tr>
                <th>Measure</th>
                <th className="num">n</th>
                <th className="num">Baseline</th>
                <th className="num">Candidate</th>
                <th className="num">Δ</th>
                <th className="num">{Math.round(cmp.paired.level * 100)}% interval of Δ</th>
                <th>Test</th>
                <th className="num">p</th>
                <th className="num">p (Holm)</th>
                <th>Verdict</th>
              </tr>
            </thead>
            <tbody>
              {cmp.paired.measures.map((m) => (
                <tr key={m.name} title={m.description}>
                  <td>{m.name}</td>
                  <td className="num">{m.n}</td>
                  <td className="num">{num(m.baseline_value)}</td>
                  <td className="num">{num(m.candidate_value)}</td>
                  <td className="num">{signed(m.delta)}</td>
                  <td className="num">
                    [{signed(m.interval.lower)}, {signed(m.interval.upper)}]
                  </td>
                  <td className="small">{m.test}</td>
                  <td className="num">{pValue(m.p_value)}</td>
                  <td className="num">{pValue(m.p_adjusted)}</td>
                  <td>
                    <span className={`badge verdict-${m.verdict}`}>{m.verdict.replaceAll('_', ' ')}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Cases</h2>
      <fieldset className="chips" aria-label="case changes">
        {CHANGES.map(([key, label]) => (
          <button
            type="button"
            key={key}
            className={`chip change-${key}${active.has(key) ? ' active' : ''}`}
            onClick={() => {
              const next = new Set(active);
              if (next.has(key)) next.delete(key);
              else next.add(key);
              go(
                data.baseline.id,
                data.candidate.id,
                CHANGES.map(([k]) => k)
                  .filter((k) => next.has(k))
                  .join(','),
              );
            }}
          >
            {label} {counts[key]}
          </button>
        ))}
      </fieldset>
      <VirtualGrid<CaseDelta>
        label="case deltas"
        resetKey={resetKey}
        refreshKey={refresh}
        fetchPage={fetchPage}
        rowHeight={40}
        columns={COLUMNS}
        header={
          <>
            <div>Change</div>
            <div>Case</div>
            <div className="num">Baseline</div>
            <div className="num">Candidate</div>
            <div className="num">Δ score</div>
            <div className="num">Δ time</div>
          </>
        }
        rowKey={(d) => d.test_id}
        onRowClick={(d) => {
          window.location.hash = href(['compare', data.baseline.id, data.candidate.id, 'cases', d.test_id, 0]);
        }}
        renderRow={(d) => (
          <>
            <div>
              <span className={`badge change-${d.change}`}>{d.change.replaceAll('_', ' ')}</span>
            </div>
            <div className="ellipsis" title={d.test_name}>
              <b>{d.test_id}</b> <span className="muted small">{d.test_name}</span>
            </div>
            <div className="num">
              {d.baseline ? `${pct(d.baseline.pass_rate, 0)} · ${num(d.baseline.score, 2)}` : '–'}
            </div>
            <div className="num">
              {d.candidate ? `${pct(d.candidate.pass_rate, 0)} · ${num(d.candidate.score, 2)}` : '–'}
            </div>
            <div className={`num ${d.score_delta !== null && d.score_delta < 0 ? 'neg' : d.score_delta ? 'pos' : ''}`}>
              {signed(d.score_delta, 2)}
            </div>
            <div className="num">{d.duration_delta === null ? '–' : `${signed(d.duration_delta, 2)} s`}</div>
          </>
        )}
        empty="No case in the selected categories."
      />
    </section>
  );
}
