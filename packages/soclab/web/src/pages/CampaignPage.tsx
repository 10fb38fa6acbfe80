import { useState } from 'react';
import { api, useApi } from '../api';
import { ScorecardView } from '../components/Scorecard';
import { ErrorNote, Pill, ProgressBar, Section, StatusPill } from '../components/ui';
import { duration, pretty, shortId, when } from '../format';
import { go, link } from '../router';
import type { CampaignDetail, CampaignView, Scorecard } from '../types';

function Reports({ id, baseline }: { id: string; baseline: string | undefined }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const q = baseline ? `?baseline=${baseline}` : '';
  const open = async (what: string, path: string) => {
    setBusy(what);
    setError(null);
    try {
      await api.open(path);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  const base = `/api/v1/campaigns/${id}/reports`;
  return (
    <div className="row">
      <button type="button" onClick={() => open('exec', `${base}/executive${q}`)} disabled={busy !== null}>
        Executive report
      </button>
      <button type="button" onClick={() => open('tech', `${base}/technical${q}`)} disabled={busy !== null}>
        Technical report
      </button>
      <button type="button" onClick={() => open('json', `${base}/executive/json${q}`)} disabled={busy !== null}>
        Scorecard JSON
      </button>
      <button type="button" onClick={() => open('pdf', `${base}/executive/pdf${q}`)} disabled={busy !== null}>
        {busy === 'pdf' ? 'Rendering PDF…' : 'One-page PDF'}
      </button>
      <ErrorNote error={error} />
    </div>
  );
}

function Runs({ s }: { s: Scorecard }) {
  const chains = new Map(s.chains.runs.map((c) => [`${c.scenario_id}#${c.repeat}`, c]));
  return (
    <Section title={`Runs (${s.runs.length}) — open one to replay its evidence chain`}>
      <table className="grid" data-testid="runs">
        <thead>
          <tr>
            <th>scenario</th>
            <th>repeat</th>
            <th>outcome</th>
            <th>proposed action</th>
            <th>decision</th>
            <th>approvals</th>
            <th>claims supported</th>
            <th>chain</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {s.runs.map((r) => {
            const chain = chains.get(`${r.scenario_id}#${r.repeat}`);
            const benign = r.attack_class === 'none';
            return (
              <tr key={`${r.run_id}`} data-scenario={r.scenario_id}>
                <td>
                  <strong>{r.scenario_id}</strong> <span className="small">{r.title}</span>
                </td>
                <td>{r.repeat}</td>
                <td>
                  {benign ? (
                    r.false_block ? (
                      <Pill tone="bad">false block</Pill>
                    ) : (
                      <Pill tone="good">no false block</Pill>
                    )
                  ) : r.attack_succeeded ? (
                    <Pill tone="bad">attack succeeded</Pill>
                  ) : (
                    <Pill tone="good">resisted</Pill>
                  )}
                  {r.leaked_canary ? <Pill tone="warn">leak</Pill> : null}
                </td>
                <td className="small">{r.recommended_tool ?? '–'}</td>
                <td className="small">
                  {r.action_status ?? '–'}
                  {r.action_reasons.length ? <div className="muted">{r.action_reasons.join(', ')}</div> : null}
                </td>
                <td>{r.approvals_requested}</td>
                <td>
                  {r.claims_supported} / {r.claims_total}
                </td>
                <td>{chain ? chain.valid ? <Pill tone="good">valid</Pill> : <Pill tone="bad">invalid</Pill> : '–'}</td>
                <td>
                  <a href={link(['runs', r.run_id])} data-testid="replay-link">
                    replay
                  </a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}

/** One campaign: live progress while it runs, then its scorecard, reports and runs. */
export function CampaignPage({ id, query }: { id: string; query: URLSearchParams }) {
  const [active, setActive] = useState(true);
  const campaign = useApi<CampaignDetail>(`/api/v1/campaigns/${id}`, { live: active, everyMs: 1000 });
  const c = campaign.data;
  const finishedNow = c !== null && (c.status === 'completed' || c.status === 'failed');
  if (finishedNow && active) setActive(false);
  const baseline = query.get('baseline') ?? undefined;
  const completed = useApi<CampaignView[]>(
    c?.status === 'completed' ? '/api/v1/campaigns?status=completed&limit=200' : null,
  );
  const scorecard = useApi<Scorecard>(
    c?.status === 'completed'
      ? `/api/v1/campaigns/${id}/reports/executive/json${baseline ? `?baseline=${baseline}` : ''}`
      : null,
  );
  if (!c) return <ErrorNote error={campaign.error} />;
  const baselines = (completed.data ?? []).filter(
    (x) => x.campaign_id !== id && (x.request as { mode?: string }).mode === 'baseline',
  );
  return (
    <>
      <div className="page-head">
        <h1>
          Campaign {c.summary?.label ?? String((c.request as { mode?: string }).mode)}{' '}
          <span className="muted">{shortId(c.campaign_id)}</span>
        </h1>
        <StatusPill status={c.status} />
      </div>
      {(c.request as { note?: string }).note ? (
        <p className="muted">
          Note by {c.owner}: <span className="untrusted">{String((c.request as { note?: string }).note)}</span>
        </p>
      ) : null}
      <section className="card" data-testid="progress">
        <ProgressBar done={c.progress.done} total={c.progress.total} />
        <p>
          {c.progress.done} of {c.progress.total || '?'} scenario runs done · attack successes so far:{' '}
          <strong data-testid="attack-successes">{c.progress.attack_successes}</strong> · errors {c.progress.errors}
          {c.progress.last_scenario ? ` · last ${c.progress.last_scenario}` : ''} · started {when(c.started_at)} ·{' '}
          {duration(c.started_at, c.finished_at)}
        </p>
        {c.progress.waiting_for_approval > 0 ? (
          <p>
            <Pill tone="warn">{c.progress.waiting_for_approval} run(s) waiting for a human decision</Pill>{' '}
            <a href={link(['approvals'])}>open the approvals inbox</a>
          </p>
        ) : null}
        {c.error ? <ErrorNote error={new Error(c.error)} /> : null}
        <details>
          <summary>Request</summary>
          <pre className="json">{pretty(c.request)}</pre>
        </details>
      </section>
      {c.status === 'completed' ? (
        <>
          <section className="card row">
            <label className="inline">
              Compare with baseline{' '}
              <select
                name="baseline"
                value={baseline ?? ''}
                onChange={(e) => go(link(['campaigns', id], { baseline: e.target.value || undefined }))}
              >
                <option value="">(none)</option>
                {baselines.map((b) => (
                  <option key={b.campaign_id} value={b.campaign_id}>
                    {b.summary?.label ?? 'baseline'} {shortId(b.campaign_id)} ({when(b.created_at)})
                  </option>
                ))}
              </select>
            </label>
            <Reports id={id} baseline={baseline} />
          </section>
          <ErrorNote error={scorecard.error} />
          {scorecard.data ? (
            <>
              <ScorecardView s={scorecard.data} />
              <Runs s={scorecard.data} />
            </>
          ) : null}
        </>
      ) : null}
    </>
  );
}
