import { useCallback, useEffect, useState } from 'react';
import { reportedLatencyIfDifferent, TIME_LABELS } from '../../../src/core/durations.js';
import { getCase, type TestCaseResult } from '../api';
import { StatusBadge } from '../components/Badges';
import { Timeline } from '../components/Timeline';
import { num, pretty, secs, when } from '../format';
import { useLiveEvents } from '../live';
import { href } from '../router';

/** One case x repeat in full: input, expected, output, every evaluator's verdict, the trajectory. */
export function CasePage({ runId, testId, repeat }: { runId: string; testId: string; repeat: number }) {
  const [result, setResult] = useState<TestCaseResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    getCase(runId, testId, repeat)
      .then((r) => {
        setResult(r);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [runId, testId, repeat]);
  useEffect(load, [load]);
  useLiveEvents((e) => {
    if (e.id === runId && !result) load();
  });

  const crumbs = (
    <nav className="crumbs">
      <a href="#/">Runs</a> / <a href={href(['runs', runId])}>{runId}</a> / <b>{testId}</b> #{repeat}
    </nav>
  );
  if (error) {
    return (
      <section>
        {crumbs}
        <div className="error">{error}</div>
      </section>
    );
  }
  if (!result) return <div className="muted">loading…</div>;
  const out = result.output;
  const messages = out.trace?.messages ?? [];
  return (
    <section className="case-page">
      {crumbs}
      <div className="run-head">
        <div>
          <h1>{result.test_name || result.test_id}</h1>
          <div className="muted">
            {result.test_id} · repeat {result.repeat} · {result.attempts} attempt{result.attempts === 1 ? '' : 's'}
            {result.started_at ? ` · ${when(result.started_at)}` : ''}
          </div>
        </div>
        <StatusBadge status={result.status} />
      </div>
      <div className="cards">
        <div className="card">
          <div className="card-label">Score</div>
          <div className="card-value">{num(result.score, 3)}</div>
        </div>
        <div className="card">
          <div className="card-label">{TIME_LABELS.callTime}</div>
          <div className="card-value">{secs(result.duration)}</div>
          {reportedLatencyIfDifferent(result.duration, out.latency) !== null && (
            <div className="muted">
              {TIME_LABELS.reportedLatency} {secs(out.latency)}
            </div>
          )}
          {out.time_to_first_token !== null && <div className="muted">first token {secs(out.time_to_first_token)}</div>}
        </div>
        <div className="card">
          <div className="card-label">Tokens</div>
          <div className="card-value">{out.usage ? out.usage.input_tokens + out.usage.output_tokens : '–'}</div>
          {out.usage && (
            <div className="muted">
              {out.usage.input_tokens} in · {out.usage.output_tokens} out{out.usage.estimated ? ' (estimated)' : ''}
            </div>
          )}
        </div>
        <div className="card">
          <div className="card-label">Cost</div>
          <div className="card-value">{out.cost !== null ? `$${out.cost.toFixed(5)}` : '–'}</div>
        </div>
      </div>
      {result.tags.length > 0 && <p className="small">{result.tags.map((t) => `#${t}`).join(' ')}</p>}

      <h2>Input</h2>
      <pre className="code">{pretty(result.input ?? '')}</pre>
      {result.expected !== undefined && (
        <>
          <h2>Expected</h2>
          <pre className="code">{pretty(result.expected)}</pre>
        </>
      )}
      <h2>Output</h2>
      {out.error !== null && <div className="error">Agent error: {out.error}</div>}
      <section aria-label="agent output">
        <pre className="code">{pretty(out.output)}</pre>
      </section>

      <h2>Evaluations</h2>
      {result.evaluations.length === 0 ? (
        <p className="muted">No evaluators ran.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Evaluator</th>
              <th className="num">Score</th>
              <th>Verdict</th>
              <th className="num">Weight</th>
              <th>Explanation</th>
            </tr>
          </thead>
          <tbody>
            {result.evaluations.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: evaluators may repeat
              <tr key={i}>
                <td>{e.evaluator}</td>
                <td className="num">{num(e.score, 3)}</td>
                <td>
                  <StatusBadge status={e.error ? 'error' : e.passed ? 'passed' : 'failed'} />
                </td>
                <td className="num">{e.weight}</td>
                <td className="pre-wrap">{e.explanation}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Trajectory</h2>
      <Timeline result={result} />

      {messages.length > 0 && (
        <>
          <h2>Messages</h2>
          <ol className="messages">
            {messages.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: message order is the identity
              <li key={i} className={`msg msg-${m.role}`}>
                <div className="msg-role">{m.role}</div>
                <pre className="pre-wrap">{m.content}</pre>
              </li>
            ))}
          </ol>
        </>
      )}
      {Object.keys(result.metadata).length > 0 && (
        <details>
          <summary>Metadata</summary>
          <pre className="code">{pretty(result.metadata)}</pre>
        </details>
      )}
    </section>
  );
}
