/** @jsxRuntime automatic */
/** @jsxImportSource react */
import { detailFields, type EventView, eventView, valueText } from './event-view.js';
import type { DecisionEntry, Scorecard } from './scorecard.js';

/** The anchor of a run's row in the audit chain table, so each event links to the chain it sits on. */
export const chainAnchor = (scenarioId: string, repeat: number) =>
  `chain-${scenarioId}-${repeat}`.replace(/[^A-Za-z0-9_-]/g, '_');

const runKey = (d: { scenario_id: string; repeat: number }) => `${d.scenario_id}${d.repeat > 0 ? ` #${d.repeat}` : ''}`;

/** Arguments (a JSON text from the journal) as a key/value list; wraps between values, never mid-token. */
export function ArgumentList({ json }: { json: string }) {
  const fields = detailFields(json);
  const entries = Object.entries(fields);
  if (entries.length === 0) return <div className="mono">{json}</div>;
  return (
    <dl className="kv">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{valueText(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function EventRow({ d, view }: { d: DecisionEntry; view: EventView }) {
  const anchor = chainAnchor(d.scenario_id, d.repeat);
  return (
    <tr id={`${anchor}-seq-${d.sequence}`} className="event-row" data-type={d.type}>
      <td className="num">
        <a href={`#${anchor}`} title="the run's audit chain">
          {`#${d.sequence}`}
        </a>
      </td>
      <td>
        <div className="event-label">{view.label}</div>
        {view.badge ? <span className={`badge ${view.badge.tone}`}>{view.badge.text}</span> : null}
      </td>
      <td>
        {view.facts.length > 0 ? (
          <dl className="kv">
            {view.facts.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        ) : null}
        <details className="raw">
          <summary>{`raw JSON (${d.type})`}</summary>
          <pre>{d.detail}</pre>
        </details>
      </td>
    </tr>
  );
}

/**
 * Policy decisions, approvals, executions and run-level attacks as readable rows, one collapsible section per
 * scenario run. Sections where an attack got through open by default.
 */
export function DecisionsByScenario({ s }: { s: Scorecard }) {
  if (s.decisions.length === 0)
    return <p className="muted">No control-plane decisions (baseline: proposals executed directly).</p>;
  const groups = new Map<string, DecisionEntry[]>();
  for (const d of s.decisions) {
    const key = runKey(d);
    const list = groups.get(key) ?? [];
    list.push(d);
    groups.set(key, list);
  }
  return (
    <div className="decision-groups">
      {[...groups.entries()].map(([key, entries]) => {
        const views = entries.map((d) => eventView(d.type, d.detail));
        const tally = new Map<string, { n: number; tone: string }>();
        for (const v of views) {
          if (!v.badge) continue;
          const t = tally.get(v.badge.text) ?? { n: 0, tone: v.badge.tone };
          t.n += 1;
          tally.set(v.badge.text, t);
        }
        const first = entries[0] as DecisionEntry;
        const run = s.runs.find((r) => r.scenario_id === first.scenario_id && r.repeat === first.repeat);
        // A deny is the control doing its job; what a reviewer must open is an attack that got through.
        const alarming = run?.attack_succeeded === true || views.some((v) => v.badge?.text === 'succeeded');
        return (
          <details
            key={key}
            className="decision-group"
            open={alarming}
            id={`${chainAnchor(first.scenario_id, first.repeat)}-events`}
          >
            <summary>
              <b>{key}</b>
              {` ${entries.length} event${entries.length === 1 ? '' : 's'} `}
              {[...tally.entries()].map(([text, t]) => (
                <span key={text} className={`badge ${t.tone}`}>{`${text} ${t.n}`}</span>
              ))}
            </summary>
            <table className="events">
              <thead>
                <tr>
                  <th className="num">Seq</th>
                  <th>Event</th>
                  <th>Detail</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((d, i) => (
                  <EventRow key={`${d.sequence}`} d={d} view={views[i] as EventView} />
                ))}
              </tbody>
            </table>
          </details>
        );
      })}
    </div>
  );
}
