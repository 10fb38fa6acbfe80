import { useState } from 'react';
import { useApi } from '../api';
import { ErrorNote, Interval, LevelBadge, ProgressBar, Section, StatusPill } from '../components/ui';
import { duration, humanize, num, pct, shortId, when } from '../format';
import { link } from '../router';
import { type CampaignView, can, type Me } from '../types';

const modeOf = (c: CampaignView): string => {
  const r = c.request as { mode?: string; ablate?: string };
  return r.ablate ? `protected − ${r.ablate}` : (r.mode ?? '?');
};
const approverOf = (c: CampaignView): string => String((c.request as { approver?: string }).approver ?? 'none');

/** A campaign that has finished and carries its summary. */
type Completed = CampaignView & { summary: NonNullable<CampaignView['summary']> };

/** Side by side: one column per selected campaign, one row per headline figure. */
function Comparison({ campaigns }: { campaigns: CampaignView[] }) {
  const done = campaigns.flatMap((c): Completed[] => (c.summary ? [{ ...c, summary: c.summary }] : []));
  if (done.length < 2) {
    return <p className="muted">Select two or more completed campaigns to compare them side by side.</p>;
  }
  const rows: [string, (c: Completed) => React.ReactNode][] = [
    ['configuration', (c) => `${modeOf(c)}, approver ${approverOf(c)}`],
    ['provider / model', (c) => `${c.summary.provider}/${c.summary.model}`],
    ['recommended authority', (c) => <LevelBadge level={c.summary.recommended_level} label={c.summary.level_label} />],
    ['bound by', (c) => c.summary.binding_rule.replace(/_/g, ' ')],
    ['runs errored or failed', (c) => c.summary.errored_headline ?? 'none'],
    ['runs attempting harm', (c) => String(c.summary.attempted_harm_runs ?? '-')],
    [
      'attack success',
      (c) => <Interval value={c.summary.attack_success.value} ci={c.summary.attack_success.ci95} bad />,
    ],
    ['attacks succeeded', (c) => `${c.summary.attack_success.numerator} of ${c.summary.attack_success.denominator}`],
    ['false blocks', (c) => `${c.summary.false_block.numerator} of ${c.summary.false_block.denominator}`],
    ['composite', (c) => num(c.summary.composite, 3)],
    ['gates failed', (c) => (c.summary.gate_failures.length ? c.summary.gate_failures.join(', ') : 'none')],
    ['critical failures', (c) => String(c.summary.critical_failures)],
    ['chains valid', (c) => (c.summary.chains_valid ? 'all' : 'NO')],
    ['runs', (c) => String(c.summary.runs)],
  ];
  return (
    <table className="grid compare" data-testid="comparison">
      <thead>
        <tr>
          <th />
          {done.map((c) => (
            <th key={c.campaign_id}>
              <a href={link(['campaigns', c.campaign_id])}>{c.summary.label}</a>{' '}
              <span className="muted">{shortId(c.campaign_id)}</span>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, cell]) => (
          <tr key={label}>
            <th>{label}</th>
            {done.map((c) => (
              <td key={c.campaign_id}>{cell(c)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every campaign, newest first, with its comparison row; refreshes while any campaign is queued or running. */
export function Campaigns({ me }: { me: Me }) {
  const [live, setLive] = useState(true);
  const list = useApi<CampaignView[]>('/api/v1/campaigns?limit=200', { live, everyMs: 1500 });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const campaigns = list.data ?? [];
  const anyActive = campaigns.some((c) => c.status === 'queued' || c.status === 'running');
  if (live !== (anyActive || list.data === null)) setLive(anyActive || list.data === null);
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <>
      <div className="page-head">
        <h1>Campaigns</h1>
        {can(me, 'run') ? (
          <a className="button" href={link(['new'])}>
            Start a campaign
          </a>
        ) : null}
      </div>
      <ErrorNote error={list.error} />
      {campaigns.length === 0 && list.data ? (
        <p className="muted">No campaigns yet.</p>
      ) : (
        <table className="grid" data-testid="campaigns">
          <thead>
            <tr>
              <th title="compare">⇆</th>
              <th>campaign</th>
              <th>status</th>
              <th>provider / model</th>
              <th>authority</th>
              <th>attack success (95% CI)</th>
              <th>false blocks</th>
              <th>composite</th>
              <th>gates failed</th>
              <th>started</th>
              <th>took</th>
            </tr>
          </thead>
          <tbody>
            {campaigns.map((c) => (
              <tr key={c.campaign_id} data-campaign={c.campaign_id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`compare ${c.campaign_id}`}
                    checked={selected.has(c.campaign_id)}
                    onChange={() => toggle(c.campaign_id)}
                    disabled={!c.summary}
                  />
                </td>
                <td>
                  <a href={link(['campaigns', c.campaign_id])}>{c.summary?.label ?? modeOf(c)}</a>{' '}
                  <span className="muted">{shortId(c.campaign_id)}</span>
                  {approverOf(c) !== 'none' ? <div className="muted small">approver {approverOf(c)}</div> : null}
                </td>
                <td>
                  <StatusPill status={c.status} />
                  {c.status === 'running' ? <ProgressBar done={c.progress.done} total={c.progress.total} /> : null}
                  {c.progress.waiting_for_approval > 0 ? (
                    <div className="small">
                      <a href={link(['approvals'])}>{c.progress.waiting_for_approval} waiting for approval</a>
                    </div>
                  ) : null}
                </td>
                <td>
                  {c.summary
                    ? `${c.summary.provider}/${c.summary.model}`
                    : String((c.request as { provider_id?: string }).provider_id ?? 'mock')}
                </td>
                <td>{c.summary ? <LevelBadge level={c.summary.recommended_level} /> : '–'}</td>
                <td>
                  {c.summary ? (
                    <Interval value={c.summary.attack_success.value} ci={c.summary.attack_success.ci95} bad />
                  ) : c.progress.done > 0 ? (
                    `${c.progress.attack_successes} so far`
                  ) : (
                    '–'
                  )}
                </td>
                <td>{c.summary ? pct(c.summary.false_block.value) : '–'}</td>
                <td>{c.summary ? num(c.summary.composite, 3) : '–'}</td>
                <td>
                  {c.summary ? (
                    // The count alone ("4") says nothing: name the gates, count in the tooltip.
                    c.summary.gate_failures.length === 0 ? (
                      'none'
                    ) : (
                      <span className="bad-text" title={`${c.summary.gate_failures.length} gates failed`}>
                        {c.summary.gate_failures.map(humanize).join(', ')}
                      </span>
                    )
                  ) : c.error ? (
                    <span className="bad-text">{c.error}</span>
                  ) : (
                    '–'
                  )}
                </td>
                <td>{when(c.started_at ?? c.created_at)}</td>
                <td>{duration(c.started_at, c.finished_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Section title="Comparison">
        <Comparison campaigns={campaigns.filter((c) => selected.has(c.campaign_id))} />
      </Section>
    </>
  );
}
