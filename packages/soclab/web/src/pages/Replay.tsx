import { useEffect } from 'react';
import { useApi } from '../api';
import { Chips, ErrorNote, Json, Pill, Section } from '../components/ui';
import { humanize, when } from '../format';
import { link } from '../router';
import type { ActionData, FindingData, ModelTurnData, Replay as ReplayData, ReplayStep, StoredEvent } from '../types';

type Data = Record<string, unknown>;
const list = (v: unknown): Data[] => (Array.isArray(v) ? (v as Data[]) : []);
const text = (v: unknown): string => (v === null || v === undefined ? '–' : String(v));

const STATUS_TONE: Record<string, 'good' | 'bad' | 'warn' | 'info' | 'muted'> = {
  executed: 'good',
  denied: 'bad',
  failed_closed: 'bad',
  awaiting_approval: 'warn',
  proposed: 'muted',
};

const cell = (v: unknown): string =>
  v === null || v === undefined
    ? '–'
    : typeof v === 'object'
      ? JSON.stringify(v)
      : typeof v === 'boolean'
        ? v
          ? 'yes'
          : 'no'
        : String(v);

/** An object as a key/value list (values as text, so untrusted strings stay text), the JSON one click away. */
function KeyValues({ value, label }: { value: unknown; label: string }) {
  const entries = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [];
  if (entries.length === 0) return <Json value={value} label={label} />;
  return (
    <>
      <dl className="facts" data-label={label}>
        {entries.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd className="untrusted">{cell(v)}</dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>Raw JSON ({label})</summary>
        <Json value={value} label={label} />
      </details>
    </>
  );
}

function ModelTurn({ d }: { d: ModelTurnData }) {
  const usage = (d.usage ?? {}) as Data;
  return (
    <>
      <p>
        <Pill tone="info">{text(d.stage)}</Pill> {text(d.provider)}/{text(d.model)} · finish {text(d.finish_reason)}
        {usage.input_tokens !== undefined ? ` · ${usage.input_tokens} in / ${usage.output_tokens} out tokens` : ''}
      </p>
      {d.error ? <p className="bad-text">error: {text(d.error)}</p> : null}
      <h3>Model output (untrusted)</h3>
      <Json value={text(d.output_text)} label="model output" />
      {d.proposed_tool ? (
        <p>
          Proposed tool <strong>{text(d.proposed_tool)}</strong>
        </p>
      ) : null}
    </>
  );
}

function Action({ d }: { d: ActionData }) {
  const status = text(d.status);
  return (
    <>
      <p>
        <strong>{text(d.tool)}</strong> <Pill tone={STATUS_TONE[status] ?? 'muted'}>{humanize(status)}</Pill>{' '}
        {d.controlled ? <Pill tone="info">through the control plane</Pill> : <Pill tone="warn">no controls</Pill>}{' '}
        <Chips items={list(d.reason_codes)} />
      </p>
      <h3>Proposal (written by the model: untrusted)</h3>
      <KeyValues value={d.arguments} label="arguments" />
      <p className="small">
        Rationale: <span className="untrusted">{text(d.rationale)}</span> · evidence:{' '}
        {list(d.evidence_refs)
          .map((r) => text(r.evidence_id))
          .join(', ') || 'none'}
      </p>
      <h3>Policy decisions</h3>
      {list(d.policy_decisions).length === 0 ? (
        <p className="muted">No policy decision point (baseline) or none recorded.</p>
      ) : (
        <table className="grid" data-testid="policy-decisions">
          <thead>
            <tr>
              <th>seq</th>
              <th>outcome</th>
              <th>reason codes</th>
              <th>deciding policies</th>
              <th>risk tier</th>
              <th>policy version</th>
            </tr>
          </thead>
          <tbody>
            {list(d.policy_decisions).map((p) => (
              <tr key={text(p.sequence)}>
                <td>{text(p.sequence)}</td>
                <td>
                  <Pill tone={p.outcome === 'deny' ? 'bad' : p.outcome === 'require_approval' ? 'warn' : 'good'}>
                    {text(p.outcome)}
                  </Pill>
                </td>
                <td>
                  <Chips items={list(p.reason_codes)} />
                </td>
                <td className="small">{list(p.policies).join(', ')}</td>
                <td>{text(p.risk_tier)}</td>
                <td className="small">{text(p.policy_version)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list(d.approvals).length > 0 ? (
        <>
          <h3>Approvals</h3>
          <ul data-testid="replay-approvals">
            {list(d.approvals).map((a) => (
              <li key={text(a.sequence)}>
                #{text(a.sequence)} {humanize(text(a.kind))}
                {a.reasons ? (
                  <>
                    {' '}
                    <Chips items={list(a.reasons)} />
                  </>
                ) : null}
                {a.decision ? (
                  <>
                    : <strong>{text(a.decision)}</strong> by {text(a.approver)}
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {list(d.grants).length > 0 ? (
        <>
          <h3>Grants</h3>
          <ul>
            {list(d.grants).map((g) => (
              <li key={text(g.sequence)} className="small">
                #{text(g.sequence)} grant {text(g.grant_id)} expires {text(g.expires_at)}
                {g.approval_id ? ` (approval ${text(g.approval_id)})` : ''}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {list(d.executions).length > 0 ? (
        <>
          <h3>Executor</h3>
          <ul>
            {list(d.executions).map((e) => (
              <li key={text(e.sequence)} className="small">
                #{text(e.sequence)} {text(e.type)}
                {e.reason ? `: ${text(e.reason)}` : ''}
                {e.code ? ` (${text(e.code)})` : ''}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {d.receipt ? (
        <>
          <h3>Execution receipt</h3>
          <KeyValues value={d.receipt} label="receipt" />
        </>
      ) : null}
      {d.tool_output !== null && d.tool_output !== undefined ? (
        <details>
          <summary>Tool output (untrusted, as the model saw it)</summary>
          <Json value={d.tool_output} />
        </details>
      ) : null}
    </>
  );
}

function Finding({ d }: { d: FindingData }) {
  const claim = (c: Data, i: number) => (
    <li key={i}>
      <span className="untrusted">{text(c.text)}</span>{' '}
      <span className="muted small">[{list(c.evidence_ids).map(String).join(', ') || 'no evidence'}]</span>
    </li>
  );
  return (
    <>
      <p>
        Confidence {text(d.confidence)} · techniques <Chips items={list(d.techniques)} />
      </p>
      <h3>Summary (written by the model)</h3>
      <Json value={text(d.summary)} />
      <h3>Supported claims ({list(d.supported_claims).length})</h3>
      <ul data-testid="supported-claims">{list(d.supported_claims).map(claim)}</ul>
      <h3>Unsupported claims ({list(d.unsupported_claims).length})</h3>
      {list(d.unsupported_claims).length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul className="bad-text" data-testid="unsupported-claims">
          {list(d.unsupported_claims).map(claim)}
        </ul>
      )}
    </>
  );
}

/** A step the server summarised (run start and end, run-level attacks): verdict, labelled facts, raw JSON a click away. */
function Summary({ step }: { step: ReplayStep }) {
  const summary = step.summary;
  if (!summary) return <Json value={step.data} />;
  return (
    <>
      {summary.verdict ? (
        <p data-testid="step-verdict">
          <Pill tone={summary.verdict.tone}>{summary.verdict.text}</Pill>
        </p>
      ) : null}
      <dl className="facts" data-testid="step-facts">
        {summary.facts.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>Raw JSON</summary>
        <Json value={step.data} />
      </details>
    </>
  );
}

function StepBody({ step }: { step: ReplayStep }) {
  // The step's kind says what its data holds (see ReplayStep in src/api/replay.ts).
  if (step.kind === 'model_turn') return <ModelTurn d={step.data} />;
  if (step.kind === 'action') return <Action d={step.data} />;
  if (step.kind === 'finding') return <Finding d={step.data} />;
  return <Summary step={step} />;
}

/** Step through one run's evidence chain, with the chain's verification status. */
export function Replay({ runId, query }: { runId: string; query: URLSearchParams }) {
  const replay = useApi<ReplayData>(`/api/v1/runs/${encodeURIComponent(runId)}/replay`);
  const events = useApi<StoredEvent[]>(`/api/v1/runs/${encodeURIComponent(runId)}/events`);
  const steps = replay.data?.steps ?? [];
  const index = Math.min(Math.max(0, Number(query.get('step') ?? 0) || 0), Math.max(0, steps.length - 1));
  const at = (i: number) => link(['runs', runId], { step: String(i) });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      if (e.key === 'ArrowRight' && index < steps.length - 1) window.location.hash = at(index + 1);
      if (e.key === 'ArrowLeft' && index > 0) window.location.hash = at(index - 1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (!replay.data) return <ErrorNote error={replay.error} />;
  const v = replay.data.verification;
  const step = steps[index];
  const raw = (events.data ?? []).filter((e) => step?.sequences.includes(e.sequence));
  return (
    <>
      <div className="page-head">
        <h1>
          Replay {replay.data.scenario_id ?? ''}{' '}
          <span className="muted">
            {replay.data.mode ?? ''} run {runId.slice(0, 8)}
          </span>
        </h1>
      </div>
      <section className={`card verification ${v.valid ? 'ok' : 'broken'}`} data-testid="verification">
        {v.valid ? (
          <>
            <Pill tone="good">chain valid</Pill> {v.length} events · root hash <code>{v.root_hash}</code>
          </>
        ) : (
          <>
            <Pill tone="bad">chain INVALID</Pill> first divergent sequence {text(v.first_invalid_sequence)}:{' '}
            {text(v.reason)}
          </>
        )}
      </section>
      <div className="replay">
        <ol className="steps">
          {steps.map((s) => (
            <li key={s.index} className={s.index === index ? 'current' : undefined}>
              <a href={at(s.index)}>
                <span className={`kind ${s.kind}`}>{humanize(s.kind)}</span> {s.title}
              </a>
            </li>
          ))}
        </ol>
        {step ? (
          <Section
            title={`Step ${index + 1} of ${steps.length}: ${step.title}`}
            actions={
              <span className="row">
                <a className={`button${index === 0 ? ' disabled' : ''}`} href={index > 0 ? at(index - 1) : undefined}>
                  ← Previous
                </a>
                <a
                  className={`button${index >= steps.length - 1 ? ' disabled' : ''}`}
                  href={index < steps.length - 1 ? at(index + 1) : undefined}
                  data-testid="next-step"
                >
                  Next →
                </a>
              </span>
            }
          >
            <div data-testid="step-body" data-kind={step.kind} data-step={index}>
              <p className="muted small">
                {step.at ? `${when(step.at)} · ` : ''}chain sequences {step.sequences.join(', ')}
              </p>
              <StepBody step={step} />
              <details>
                <summary>Chain events behind this step ({raw.length})</summary>
                <table className="grid small">
                  <thead>
                    <tr>
                      <th>seq</th>
                      <th>type</th>
                      <th>event hash</th>
                      <th>previous</th>
                    </tr>
                  </thead>
                  <tbody>
                    {raw.map((e) => (
                      <tr key={e.sequence}>
                        <td>{e.sequence}</td>
                        <td>{e.event_type}</td>
                        <td>
                          <code>{e.event_hash.slice(0, 16)}…</code>
                        </td>
                        <td>
                          <code>{e.previous_hash.slice(0, 16)}…</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            </div>
          </Section>
        ) : null}
      </div>
    </>
  );
}
