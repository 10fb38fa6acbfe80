/** @jsxRuntime automatic */
/** @jsxImportSource react */
/** Server-rendered parts of the HTML report. React escapes every text and attribute value. */

import { formatSeconds, TIME_LABELS } from '../../core/durations.js';
import type { CaseStatus, TestCaseResult } from '../../core/result.js';
import type { ExperimentHeader } from '../../core/view.js';
import { outputOf, reasonOf } from '../support/text.js';
import { Histogram, IntervalStrip, StatusBar, type StatusCounts, TagBars, type TagStat } from './charts.js';

/** Aggregates from the first pass over the results. */
export interface ReportStats {
  total: number;
  counts: StatusCounts;
  scoreSum: number;
  scoreBins: number[];
  latencyBins: number[];
  latencyMin: number;
  latencyMax: number;
  latencyMean: number | null;
  latencyP95: number | null;
  costSum: number;
  costCount: number;
  tokenSum: number;
  tags: TagStat[];
  evaluators: string[];
  /** Rows in the table (all cases, or a cap with every failure kept). */
  shown: number;
}

const STATUS_LABEL: Record<CaseStatus, string> = { passed: 'pass', failed: 'fail', error: 'error', skipped: 'skipped' };

export function Title({ header }: { header: ExperimentHeader }) {
  return <title>{`Evaluation report: ${header.name}`}</title>;
}

export function PageHeader({ header }: { header: ExperimentHeader }) {
  const h = header;
  return (
    <header>
      <h1>{`Evaluation report: ${h.name}`}</h1>
      <ul className="facts">
        <li>
          Run <b>{h.id}</b>
        </li>
        <li>
          Suite <b>{h.suite.name}</b> v{h.suite.version}
        </li>
        <li>
          Agent <b>{h.agent.label ?? h.agent.adapter}</b>
          {h.agent.version ? ` ${h.agent.version}` : ''}
        </li>
        <li>
          State <b>{h.state}</b>
        </li>
        <li>Started {h.started_at}</li>
        {h.finished_at ? <li>Finished {h.finished_at}</li> : null}
        <li>
          harness {h.environment.tool_version} · Node {h.environment.node_version}
          {h.environment.git_commit ? ` · commit ${h.environment.git_commit.slice(0, 12)}` : ''}
        </li>
      </ul>
    </header>
  );
}

function Card({ value, label }: { value: string; label: string }) {
  return (
    <div className="card">
      <div className="v">{value}</div>
      <div className="l">{label}</div>
    </div>
  );
}

export function Summary({ header, stats }: { header: ExperimentHeader; stats: ReportStats }) {
  const s = stats;
  const judged = s.total - s.counts.skipped;
  const pct = (n: number) => (judged > 0 ? `${((n / judged) * 100).toFixed(1)}%` : '—');
  const metrics = Object.values(header.metrics);
  const t = header.thresholds;
  const unitLatency = (x: number | null) => (x === null ? '—' : formatSeconds(x));
  return (
    <section id="summary">
      <div className="cards">
        <Card value={String(s.total)} label="case runs" />
        <Card value={pct(s.counts.passed)} label={`passed (${s.counts.passed})`} />
        <Card value={String(s.counts.failed)} label="failed" />
        <Card value={String(s.counts.error)} label="agent errors" />
        {s.counts.skipped > 0 ? <Card value={String(s.counts.skipped)} label="skipped" /> : null}
        <Card value={s.total > 0 ? (s.scoreSum / s.total).toFixed(3) : '—'} label="mean score" />
        <Card value={unitLatency(s.latencyMean)} label={`mean ${TIME_LABELS.reportedLatency}`} />
        <Card value={unitLatency(s.latencyP95)} label={`p95 ${TIME_LABELS.reportedLatency}`} />
        {s.costCount > 0 ? <Card value={`$${Number(s.costSum.toPrecision(4))}`} label="total cost" /> : null}
        {s.tokenSum > 0 ? <Card value={s.tokenSum.toLocaleString('en-US')} label="tokens" /> : null}
      </div>
      {t ? (
        <p className={t.passed ? 'ok' : 'bad'}>
          {t.passed
            ? `All ${t.checked} thresholds met.`
            : `${t.violations.length} of ${t.checked} thresholds violated: ${t.violations.map((v) => v.message).join('; ')}`}
        </p>
      ) : null}
      <h2>Metrics</h2>
      {metrics.length === 0 ? (
        <p className="note">This run recorded no metrics.</p>
      ) : (
        <table className="metrics">
          <thead>
            <tr>
              <th>Metric</th>
              <th className="num">Value</th>
              <th>95% interval</th>
              <th />
              <th>Direction</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {metrics.map((m) => {
              const iv = m.interval;
              const unit01 = iv !== null && [m.value, iv.lower, iv.upper].every((v) => v >= 0 && v <= 1);
              return (
                <tr key={m.name}>
                  <td>{m.name}</td>
                  <td className="num">{m.error ? 'ERR' : m.formatted_value}</td>
                  <td className="num">
                    {iv
                      ? `${Number(iv.lower.toPrecision(3))} – ${Number(iv.upper.toPrecision(3))}${iv.level !== 0.95 ? ` (${Math.round(iv.level * 100)}%)` : ''}`
                      : ''}
                  </td>
                  <td>{iv && unit01 ? <IntervalStrip value={m.value} lower={iv.lower} upper={iv.upper} /> : null}</td>
                  <td>{m.direction.replace(/_/g, ' ')}</td>
                  <td className="desc">
                    {m.error ?? m.description ?? ''}
                    {m.sample_size !== undefined ? ` (n = ${m.sample_size})` : ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h2>Charts</h2>
      <div className="charts">
        <StatusBar counts={s.counts} />
        <Histogram title="Case scores" bins={s.scoreBins} min={0} max={1} />
        {s.latencyMean !== null ? (
          <Histogram
            title="Latency"
            bins={s.latencyBins}
            min={s.latencyMin}
            max={s.latencyMax}
            unit=" s"
            color="#8250df"
          />
        ) : null}
        {s.tags.length > 0 ? <TagBars tags={s.tags} /> : null}
      </div>
    </section>
  );
}

export function Filters({ stats }: { stats: ReportStats }) {
  return (
    <search className="filters">
      <input id="f-text" type="search" placeholder="Search cases, outputs, reasons…" aria-label="Search" />
      <select id="f-status" aria-label="Status">
        <option value="">all statuses</option>
        <option value="passed">passed</option>
        <option value="failed">failed</option>
        <option value="error">error</option>
        <option value="skipped">skipped</option>
      </select>
      <select id="f-tag" aria-label="Tag">
        <option value="">all tags</option>
        {stats.tags.map((t) => (
          <option key={t.tag} value={t.tag}>
            {t.tag}
          </option>
        ))}
      </select>
      <select id="f-eval" aria-label="Failing evaluator">
        <option value="">any evaluator</option>
        {stats.evaluators.map((e) => (
          <option key={e} value={e}>
            {`failed ${e}`}
          </option>
        ))}
      </select>
      <span id="f-count">{`${stats.shown} of ${stats.shown} shown`}</span>
    </search>
  );
}

/** Column headers of the case grid (the rows are drawn by the report's script, only those in view). */
export function GridHead() {
  const cols: Array<[string, string, string]> = [
    ['status', 'Status', ''],
    ['name', 'Case', ''],
    ['repeat', 'Repeat', 'num'],
    ['score', 'Score', 'num'],
    ['duration', 'Call time', 'num'],
    ['tags', 'Tags', ''],
    ['reason', 'Reason', ''],
    ['output', 'Output', ''],
  ];
  return (
    <div className="row head">
      {cols.map(([key, label, cls]) => (
        <div key={key} className={cls}>
          {key === 'tags' || key === 'reason' || key === 'output' ? (
            label
          ) : (
            <button type="button" className="sort" data-sort={key} title={`sort by ${label.toLowerCase()}`}>
              {label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}

function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One row of the no-JavaScript fallback table. */
export function FallbackRow({ result: r }: { result: TestCaseResult }) {
  return (
    <tr>
      <td>
        <span className={`badge s-${r.status}`}>{STATUS_LABEL[r.status]}</span>
      </td>
      <td>
        {r.test_name || r.test_id}
        {r.test_name && r.test_name !== r.test_id ? <small>{r.test_id}</small> : null}
      </td>
      <td className="num">{r.repeat}</td>
      <td className="num">{r.score.toFixed(3)}</td>
      <td>{preview(reasonOf(r), 300)}</td>
      <td>{preview(outputOf(r), 300)}</td>
    </tr>
  );
}

/** Without JavaScript the grid cannot draw: list the cases that did not pass instead. */
export function Fallback({ rows, total }: { rows: TestCaseResult[]; total: number }) {
  return (
    <>
      <p className="note">{`Scripts are off: the ${rows.length} case runs that did not pass are listed below (of ${total}); the full grid, filters and case details need JavaScript.`}</p>
      <table className="fallback">
        <thead>
          <tr>
            <th>Status</th>
            <th>Case</th>
            <th className="num">Repeat</th>
            <th className="num">Score</th>
            <th>Reason</th>
            <th>Output</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <FallbackRow key={`${r.test_id}#${r.repeat}`} result={r} />
          ))}
        </tbody>
      </table>
    </>
  );
}

export function Drill() {
  return (
    <aside id="drill" hidden aria-label="Case details" tabIndex={-1}>
      <button id="drill-close" className="close" type="button" aria-label="Close">
        ×
      </button>
      <div id="drill-content" />
    </aside>
  );
}
