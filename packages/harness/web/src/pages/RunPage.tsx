import { useCallback, useEffect, useMemo, useState } from 'react';
import { formatLike, TIME_LABELS, wallSeconds } from '../../../src/core/durations.js';
import { type CaseSummary, getCases, getRun, type RunDetail } from '../api';
import { PassBar, StateBadge, StatusBadge } from '../components/Badges';
import { folderName, GateVerdict, HeadlineCard, intervalText, RunOverview } from '../components/RunOverview';
import { VirtualGrid } from '../components/VirtualGrid';
import { keyed, num, pct, secs, when } from '../format';
import { useLiveEvents } from '../live';
import { href, replaceQuery } from '../router';

const STATUSES = ['passed', 'failed', 'error', 'skipped'] as const;
const COLUMNS = '90px minmax(160px, 1.2fr) 60px 70px 80px minmax(160px, 1fr) minmax(200px, 2fr)';

/** One run: summary, metrics with intervals, and a virtualised, server-filtered case grid. */
export function RunPage({ id, query }: { id: string; query: URLSearchParams }) {
  const [run, setRun] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const status = query.get('status') ?? '';
  const tag = query.get('tag') ?? '';
  const evaluator = query.get('evaluator') ?? '';
  const evaluatorPassed = query.get('evaluator_passed') ?? '';
  const requestedSort = query.get('sort') ?? '';
  const [search, setSearch] = useState(query.get('q') ?? '');
  const [q, setQ] = useState(search);

  const filters = { status, tag, evaluator, evaluator_passed: evaluatorPassed, sort: requestedSort, q };
  const setFilter = (patch: Partial<typeof filters>) => {
    const next = { ...filters, ...patch };
    replaceQuery(['runs', id], next);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  };

  const loadRun = useCallback(() => {
    getRun(id)
      .then((r) => {
        setRun(r);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [id]);
  useEffect(loadRun, [loadRun]);
  useLiveEvents((e) => {
    if (e.id === run?.id || e.id === id) {
      loadRun();
      setRefresh((n) => n + 1);
    }
  });

  // Debounce the text filter.
  useEffect(() => {
    const t = setTimeout(() => setQ(search), 250);
    return () => clearTimeout(t);
  }, [search]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the debounced text drives the URL
  useEffect(() => {
    if (q !== (query.get('q') ?? '')) setFilter({ q });
  }, [q]);

  // Failures first by default (lowest score first); "run order" is an explicit choice.
  const sort = requestedSort || (run && run.failed + run.errored > 0 ? 'score' : 'seq');
  const runId = run?.id ?? id;
  const folder = run ? folderName(run.location) : null;
  useEffect(() => {
    if (run) document.title = `${folder ?? run.name} · harness view`;
  }, [run, folder]);
  const fetchPage = useCallback(
    (offset: number, limit: number, signal: AbortSignal) =>
      getCases(
        runId,
        { status, tag, evaluator, evaluator_passed: evaluator ? evaluatorPassed : '', sort, q, offset, limit },
        signal,
      ),
    [runId, status, tag, evaluator, evaluatorPassed, sort, q],
  );
  const resetKey = useMemo(
    () => JSON.stringify([runId, status, tag, evaluator, evaluatorPassed, sort, q]),
    [runId, status, tag, evaluator, evaluatorPassed, sort, q],
  );

  if (error) return <div className="error">{error}</div>;
  if (!run) return <div className="muted">loading…</div>;
  const statusSet = new Set(status.split(',').filter(Boolean));

  return (
    <section>
      <nav className="crumbs">
        <a href="#/">Runs</a> / <a href={href(['history', run.suite_name])}>{run.suite_name}</a> /{' '}
        <b>{folder ?? run.id}</b>
      </nav>
      <div className="run-head">
        <div>
          <h1 data-testid="run-title">
            {folder ?? run.name}
            {run.agent_label ? <span className="muted">{` · ${run.agent_label}`}</span> : null}
          </h1>
          <div className="muted">
            {`${run.name} · run ${run.id} · `}
            {run.agent_adapter}
            {run.agent_label ? ` · ${run.agent_label}` : ''}
            {run.agent_version && run.agent_version !== run.agent_label ? ` · v${run.agent_version}` : ''} · started{' '}
            {when(run.started_at)}
            {run.finished_at ? ` · finished ${when(run.finished_at)}` : ''}
          </div>
        </div>
        <StateBadge state={run.state} idle={run.idle_seconds} />
      </div>
      <GateVerdict run={run} />
      <div className="cards">
        <HeadlineCard run={run} />
        <div className="card">
          <div className="card-label">Cases</div>
          <div className="card-value">{run.total}</div>
          <div className="muted">
            {run.passed} passed · {run.failed} failed · {run.errored} errors
            {run.skipped ? ` · ${run.skipped} skipped` : ''}
          </div>
        </div>
        <div className="card">
          <div className="card-label">Pass rate</div>
          <div className="card-value">{pct(run.pass_rate)}</div>
          <PassBar value={run.pass_rate} />
        </div>
        {Object.values(run.metrics).map((m) => (
          <div className="card" key={m.name} title={m.error ?? ''}>
            <div className="card-label">{m.name}</div>
            <div className="card-value">{m.formatted_value}</div>
            <div className="muted">
              {m.direction.replaceAll('_', ' ')}
              {run.header.metrics[m.name]?.interval
                ? ` · ${intervalText(run.header.metrics[m.name] as NonNullable<(typeof run.header.metrics)[string]>)}`
                : m.lower !== null && m.upper !== null
                  ? ` · ${Math.round((m.level ?? 0.95) * 100)}% CI [${formatLike(m.formatted_value, m.lower, (x) => num(x))}, ${formatLike(m.formatted_value, m.upper, (x) => num(x))}]`
                  : ''}
              {m.sample_size !== null ? ` · n=${m.sample_size}` : ''}
            </div>
          </div>
        ))}
        <div className="card">
          <div className="card-label">{TIME_LABELS.wallTime}</div>
          <div className="card-value">{secs(wallSeconds(run.started_at, run.finished_at))}</div>
          <div className="muted">
            {TIME_LABELS.callTimeSum} {secs(run.total_duration)} ·{' '}
            {run.total_cost !== null ? `$${run.total_cost.toFixed(4)}` : 'no cost recorded'}
          </div>
        </div>
      </div>

      <RunOverview run={run} onReason={(caseId) => setSearch(caseId)} />

      {run.evaluators.length > 0 && (
        <fieldset className="chips" aria-label="evaluators">
          <span className="muted">Evaluators:</span>
          {run.evaluators.map((e) => (
            <button
              type="button"
              key={e.evaluator}
              className={`chip${evaluator === e.evaluator ? ' active' : ''}`}
              onClick={() =>
                setFilter({ evaluator: evaluator === e.evaluator ? '' : e.evaluator, evaluator_passed: '' })
              }
            >
              {e.evaluator} {e.passed}/{e.cases}
            </button>
          ))}
        </fieldset>
      )}
      {run.tags.length > 0 && (
        <fieldset className="chips" aria-label="tags">
          <span className="muted">Tags:</span>
          {run.tags.map((t) => (
            <button
              type="button"
              key={t.tag}
              className={`chip${tag === t.tag ? ' active' : ''}`}
              onClick={() => setFilter({ tag: tag === t.tag ? '' : t.tag })}
            >
              #{t.tag} {t.passed}/{t.cases}
            </button>
          ))}
        </fieldset>
      )}

      <div className="toolbar filters">
        <fieldset className="status-filter">
          <legend className="sr-only">status</legend>
          {STATUSES.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={statusSet.has(s)}
                onChange={() => {
                  const next = new Set(statusSet);
                  if (next.has(s)) next.delete(s);
                  else next.add(s);
                  setFilter({ status: STATUSES.filter((x) => next.has(x)).join(',') });
                }}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        {evaluator && (
          <label>
            {evaluator}{' '}
            <select value={evaluatorPassed} onChange={(e) => setFilter({ evaluator_passed: e.target.value })}>
              <option value="">scored</option>
              <option value="false">failed</option>
              <option value="true">passed</option>
            </select>
          </label>
        )}
        <label>
          Sort{' '}
          <select value={sort} onChange={(e) => setFilter({ sort: e.target.value })}>
            <option value="seq">run order</option>
            <option value="score">lowest score (failures first)</option>
            <option value="-score">highest score</option>
            <option value="-duration">slowest</option>
            <option value="test_id">case id</option>
          </select>
        </label>
        <input
          type="search"
          placeholder="Search case id or name"
          aria-label="search cases"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        {(status || tag || evaluator || q) && (
          <button
            type="button"
            onClick={() => {
              setSearch('');
              setFilter({ status: '', tag: '', evaluator: '', evaluator_passed: '', q: '' });
            }}
          >
            Clear filters
          </button>
        )}
      </div>

      <VirtualGrid<CaseSummary>
        label="cases"
        resetKey={resetKey}
        refreshKey={refresh}
        fetchPage={fetchPage}
        rowHeight={44}
        columns={COLUMNS}
        header={
          <>
            <div>Status</div>
            <div>Case</div>
            <div className="num">Score</div>
            <div className="num">{TIME_LABELS.callTime}</div>
            <div>Tags</div>
            <div>Evaluators</div>
            <div>Output</div>
          </>
        }
        rowKey={(c) => `${c.test_id}#${c.repeat}`}
        onRowClick={(c) => {
          window.location.hash = href(['runs', run.id, 'cases', c.test_id, c.repeat]);
        }}
        renderRow={(c) => (
          <>
            <div>
              <StatusBadge status={c.status} />
            </div>
            <div className="ellipsis" title={c.test_name}>
              <b>{c.test_id}</b>
              <span className="muted"> #{c.repeat}</span>
              <div className="muted ellipsis small">{c.test_name}</div>
            </div>
            <div className="num">{num(c.score, 2)}</div>
            <div className="num">{secs(c.duration)}</div>
            <div className="ellipsis small">{c.tags.map((t) => `#${t}`).join(' ')}</div>
            <div className="ellipsis">
              {keyed(c.evaluations).map(({ key, item: e }) => (
                <span
                  key={key}
                  className={`dot ${e.error ? 'dot-error' : e.passed ? 'dot-pass' : 'dot-fail'}`}
                  title={`${e.evaluator}: ${e.score.toFixed(2)}`}
                >
                  {e.evaluator}
                </span>
              ))}
            </div>
            <div className="ellipsis mono small" title={c.output_preview}>
              {c.error ? <span className="err-text">{c.error}</span> : c.output_preview}
            </div>
          </>
        )}
        empty="No case matches these filters."
      />
    </section>
  );
}
