import { useEffect, useState } from 'react';
import { ApiError, getCase, type TestCaseResult } from '../api';
import { StatusBadge } from '../components/Badges';
import { Timeline } from '../components/Timeline';
import { keyed, num, pretty, secs } from '../format';
import { href } from '../router';

type Side = { result: TestCaseResult | null; error: string | null };

async function load(runId: string, testId: string, repeat: number): Promise<Side> {
  try {
    return { result: await getCase(runId, testId, repeat), error: null };
  } catch (err) {
    return {
      result: null,
      error: err instanceof ApiError && err.status === 404 ? 'not in this run' : (err as Error).message,
    };
  }
}

function Column({ title, runId, side }: { title: string; runId: string; side: Side | null }) {
  if (!side) return <div className="muted">loading…</div>;
  const r = side.result;
  return (
    <div className="side">
      <h2>
        {title} <a href={href(['runs', runId])}>{runId}</a>
      </h2>
      {!r ? (
        <div className="empty">{side.error}</div>
      ) : (
        <>
          <p>
            <StatusBadge status={r.status} /> score {num(r.score, 3)} · {secs(r.duration)}
          </p>
          <h3>Output</h3>
          {r.output.error !== null && <div className="error">Agent error: {r.output.error}</div>}
          <pre className="code">{pretty(r.output.output)}</pre>
          <h3>Evaluations</h3>
          <ul className="evals">
            {keyed(r.evaluations).map(({ key, item: e }) => (
              <li key={key}>
                <StatusBadge status={e.error ? 'error' : e.passed ? 'passed' : 'failed'} /> <b>{e.evaluator}</b>{' '}
                {num(e.score, 2)}
                <div className="muted pre-wrap">{e.explanation}</div>
              </li>
            ))}
          </ul>
          <h3>Trajectory</h3>
          <Timeline result={r} />
        </>
      )}
    </div>
  );
}

/** One case in two runs, side by side: outputs, verdicts and trajectories. */
export function CaseComparePage(props: { baseline: string; candidate: string; testId: string; repeat: number }) {
  const { baseline, candidate, testId, repeat } = props;
  const [a, setA] = useState<Side | null>(null);
  const [b, setB] = useState<Side | null>(null);
  useEffect(() => {
    void load(baseline, testId, repeat).then(setA);
    void load(candidate, testId, repeat).then(setB);
  }, [baseline, candidate, testId, repeat]);
  const input = a?.result?.input ?? b?.result?.input;
  const expected = a?.result?.expected ?? b?.result?.expected;
  return (
    <section>
      <nav className="crumbs">
        <a href="#/">Runs</a> / <a href={href(['compare', baseline, candidate])}>compare</a> / <b>{testId}</b> #{repeat}
      </nav>
      <h1>{a?.result?.test_name || b?.result?.test_name || testId}</h1>
      <h2>Input</h2>
      <pre className="code">{pretty(input ?? '')}</pre>
      {expected !== undefined && (
        <>
          <h2>Expected</h2>
          <pre className="code">{pretty(expected)}</pre>
        </>
      )}
      <div className="side-by-side">
        <Column title="Baseline" runId={baseline} side={a} />
        <Column title="Candidate" runId={candidate} side={b} />
      </div>
    </section>
  );
}
