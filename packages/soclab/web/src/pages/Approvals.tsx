import { useEffect, useState } from 'react';
import { api, useApi } from '../api';
import { Chips, ErrorNote, Json, Pill, Section } from '../components/ui';
import { shortId, when } from '../format';
import { link } from '../router';
import { type ApprovalHistoryRow, can, type Me, type PendingApproval } from '../types';

function secondsLeft(deadline: string): number {
  return Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
}

function Request({ item, me, onDecided }: { item: PendingApproval; me: Me; onDecided: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [, setNow] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setNow((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, []);
  const decide = async (decision: 'approved' | 'rejected') => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/api/v1/approvals/${item.approval_id}/decision`, { decision, reason: reason.trim() });
      onDecided();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const self = me.you.name === item.requested_by.agent_id || me.you.name === item.requested_by.delegated_user_id;
  return (
    <article className="card request" data-testid="approval-request" data-approval={item.approval_id}>
      <header className="card-head">
        <h2>
          {item.tool_name} <span className="muted">for {item.scenario_id}</span>
        </h2>
        <Pill tone="warn">{secondsLeft(item.deadline)} s left</Pill>
      </header>
      <p>
        Why a human: <Chips items={item.reason_codes} tone="warn" /> · requested {when(item.requested_at)} by{' '}
        {item.requested_by.agent_id} on behalf of {item.requested_by.delegated_user_id} ({item.model}) ·{' '}
        {item.evidence_count} evidence reference(s)
        {item.campaign_id ? (
          <>
            {' '}
            · campaign <a href={link(['campaigns', item.campaign_id])}>{shortId(item.campaign_id)}</a>
          </>
        ) : null}
      </p>
      <h3>Arguments (proposed by the model: untrusted)</h3>
      <Json value={item.arguments} label="arguments" />
      <p className="small">
        Rationale: <span className="untrusted">{item.rationale}</span>
      </p>
      {can(me, 'approve') ? (
        self ? (
          <p className="bad-text">You requested this action; someone else must decide it.</p>
        ) : (
          <div className="decide">
            <label>
              Reason (recorded with your decision)
              <input
                name="reason"
                value={reason}
                maxLength={2000}
                onChange={(e) => setReason(e.target.value)}
                placeholder="e.g. confirmed with the account owner"
              />
            </label>
            <button type="button" disabled={busy || reason.trim() === ''} onClick={() => decide('approved')}>
              Approve
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy || reason.trim() === ''}
              onClick={() => decide('rejected')}
            >
              Reject
            </button>
          </div>
        )
      ) : (
        <p className="muted">Your role ({me.you.role}) can watch this inbox; an approver decides.</p>
      )}
      <ErrorNote error={error} />
    </article>
  );
}

const OUTCOME_TONE: Record<string, 'good' | 'bad' | 'warn' | 'muted'> = {
  approved: 'good',
  rejected: 'bad',
  expired: 'warn',
  cancelled: 'muted',
  interrupted: 'muted',
};

/** The approvals inbox: requests raised by `approver: human` campaign runs, each run waiting for its decision. */
export function Approvals({ me }: { me: Me }) {
  const pending = useApi<PendingApproval[]>('/api/v1/approvals', { live: true, everyMs: 1000 });
  const history = useApi<ApprovalHistoryRow[]>('/api/v1/approvals/history?limit=50', { live: true, everyMs: 3000 });
  const items = pending.data ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Approvals inbox</h1>
        <span className="muted">
          {items.length} pending · runs of campaigns with the <code>human</code> approver wait here for a decision
        </span>
      </div>
      <ErrorNote error={pending.error} />
      {items.length === 0 && pending.data ? (
        <p className="muted" data-testid="inbox-empty">
          Nothing waiting for a decision.
        </p>
      ) : null}
      {items.map((item) => (
        <Request
          key={item.approval_id}
          item={item}
          me={me}
          onDecided={() => {
            pending.reload();
            history.reload();
          }}
        />
      ))}
      <Section title="History">
        <table className="grid" data-testid="approval-history">
          <thead>
            <tr>
              <th>decided</th>
              <th>scenario</th>
              <th>action</th>
              <th>outcome</th>
              <th>by</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {(history.data ?? []).map((h) => (
              <tr key={h.approval_id}>
                <td>{when(h.decided_at)}</td>
                <td>{h.scenario_id}</td>
                <td>
                  {h.tool_name} <span className="muted small">{JSON.stringify(h.arguments)}</span>
                </td>
                <td>
                  <Pill tone={OUTCOME_TONE[h.outcome] ?? 'muted'}>{h.outcome}</Pill>
                </td>
                <td>{h.approver_id ?? '–'}</td>
                <td className="small">{h.reason ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}
