import type { TestCaseResult } from '../api';
import { pretty, secs } from '../format';

type ToolCall = TestCaseResult['output']['tool_calls'][number];
type Span = NonNullable<TestCaseResult['output']['trace']>['spans'][number];

function toolCallsOf(result: TestCaseResult): ToolCall[] {
  const top = result.output.tool_calls;
  return top.length > 0 ? top : (result.output.trace?.tool_calls ?? []);
}

/** Spans as bars on a shared time axis, indented by nesting depth. */
function SpanTimeline({ spans }: { spans: Span[] }) {
  const start = Math.min(...spans.map((s) => s.start_ms));
  const end = Math.max(...spans.map((s) => s.end_ms));
  const width = Math.max(1, end - start);
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const depth = (s: Span): number => {
    let d = 0;
    for (
      let p = s.parent_id ? byId.get(s.parent_id) : undefined;
      p && d < 20;
      p = p.parent_id ? byId.get(p.parent_id) : undefined
    )
      d++;
    return d;
  };
  const ordered = [...spans].sort((a, b) => a.start_ms - b.start_ms);
  return (
    <div className="spans">
      {ordered.map((s) => (
        <div className="span-row" key={s.span_id}>
          <div className="span-name" style={{ paddingLeft: depth(s) * 14 }} title={s.name}>
            {s.name}
          </div>
          <div className="span-track">
            <div
              className={`span-bar span-${s.status}`}
              style={{
                left: `${((s.start_ms - start) / width) * 100}%`,
                width: `${Math.max(0.5, ((s.end_ms - s.start_ms) / width) * 100)}%`,
              }}
              title={`${s.name}: ${s.end_ms - s.start_ms} ms`}
            />
          </div>
          <div className="span-dur">{s.end_ms - s.start_ms} ms</div>
        </div>
      ))}
    </div>
  );
}

/** The agent's trajectory: each tool call in order with its arguments, result and time, plus spans. */
export function Timeline({ result }: { result: TestCaseResult }) {
  const calls = toolCallsOf(result);
  const spans = result.output.trace?.spans ?? [];
  const longest = Math.max(0.001, ...calls.map((c) => c.duration ?? 0));
  if (calls.length === 0 && spans.length === 0) return <p className="muted">No tool calls or spans recorded.</p>;
  return (
    <div className="timeline">
      {calls.length > 0 && (
        <ol className="steps" aria-label="tool calls">
          {calls.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the trajectory's order is its identity
            <li key={i} className={`step step-${c.status}`}>
              <div className="step-head">
                <span className="step-index">{i + 1}</span>
                <span className="step-tool">{c.tool_name}</span>
                <span className={`badge status-${c.status === 'success' ? 'passed' : 'error'}`}>{c.status}</span>
                <span className="step-bar">
                  <span style={{ width: `${((c.duration ?? 0) / longest) * 100}%` }} />
                </span>
                <span className="muted">{secs(c.duration)}</span>
              </div>
              <details>
                <summary>arguments and result</summary>
                <div className="two-col">
                  <pre className="code">{pretty(c.args)}</pre>
                  <pre className="code">{c.error ? `error: ${c.error}` : pretty(c.result ?? null)}</pre>
                </div>
              </details>
            </li>
          ))}
        </ol>
      )}
      {spans.length > 0 && <SpanTimeline spans={spans} />}
    </div>
  );
}
