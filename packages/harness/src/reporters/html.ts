import { z } from 'zod';
import { toolCalls } from '../core/agent.js';
import { formatSeconds, reportedLatencyIfDifferent } from '../core/durations.js';
import { itemAt } from '../core/item-at.js';
import type { TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import { defineReporter } from './base.js';
import { REPORT_CSS, REPORT_SCRIPT, REPORT_SCRIPT_HASH } from './html/assets.js';
import { clip, jsonForScript, pretty } from './html/embed.js';
import type { ReportStats } from './html/page.js';
import { renderTo } from './support/sink.js';
import { asView, inputOf, outputOf, reasonOf } from './support/text.js';

const HtmlOptions = z.strictObject({
  /**
   * Most case runs embedded (the grid draws only the rows in view, so this bounds the file size, not the
   * page's speed). Above it every failing case is kept first, then passing ones; the page says how many
   * were left out. Default 50,000.
   */
  max_rows: z.number().int().min(1).default(50_000),
  /** Longest input, output or explanation kept for the drill-down (characters). */
  max_field_chars: z.number().int().min(100).default(20_000),
});
export type HtmlOptions = z.infer<typeof HtmlOptions>;

const DATA_BATCH = 500;
/** Rows of the no-JavaScript fallback table (cases that did not pass). */
const FALLBACK_ROWS = 500;

/**
 * React's development build renders about twice as slowly; a CLI process that did not choose a mode gets the
 * production one (set before React is first loaded, which is why React is imported lazily here).
 */
async function loadReact() {
  if (process.env.NODE_ENV === undefined) process.env.NODE_ENV = 'production';
  const [{ createElement }, { renderToStaticMarkup }, page] = await Promise.all([
    import('react'),
    import('react-dom/server'),
    import('./html/page.js'),
  ]);
  return { createElement, renderToStaticMarkup, page };
}
const SCORE_BINS = 10;
const LATENCY_BINS = 20;

/**
 * One self-contained HTML file (no network: a Content-Security-Policy allows only the page's own inline script):
 * run facts, metrics with intervals, inline SVG charts, a filterable case table and a drill-down showing input,
 * output, tool-call trajectory and every evaluator's explanation. All run text is escaped by React or embedded
 * as script-safe JSON and placed with textContent.
 *
 * @example harness export runs/latest --format html --out report.html
 */
export const htmlReporter = defineReporter({
  name: 'html',
  description: 'Self-contained HTML report with charts, a filterable case table and per-case drill-down',
  extension: 'html',
  options: HtmlOptions as z.ZodType<HtmlOptions>,
  create(options) {
    const o = HtmlOptions.parse(options ?? {});
    return {
      name: 'html',
      async report(run, destination) {
        const view = asView(run);
        const stats = await collectStats(view, o.max_rows);
        const { createElement, renderToStaticMarkup, page } = await loadReact();
        const { Drill, Fallback, Filters, GridHead, PageHeader, Summary, Title } = page;
        return renderTo(destination, async (sink) => {
          const h = view.header;
          const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '${REPORT_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
          await sink.write(
            `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
              `<meta http-equiv="Content-Security-Policy" content="${csp}">` +
              `<meta name="generator" content="harness">${renderToStaticMarkup(createElement(Title, { header: h }))}` +
              `<style>${REPORT_CSS}</style></head><body>`,
          );
          await sink.write(renderToStaticMarkup(createElement(PageHeader, { header: h })));
          await sink.write(`<main>${renderToStaticMarkup(createElement(Summary, { header: h, stats }))}`);
          const cut = stats.total - stats.shown;
          await sink.write(
            `<section id="cases"><h2>Cases</h2>` +
              (cut > 0
                ? `<p class="note">Showing ${stats.shown} of ${stats.total} case runs (every failing one first); ${cut} passing runs are left out. Use <code>harness view</code> or the JSON report for all of them.</p>`
                : '') +
              renderToStaticMarkup(createElement(Filters, { stats })) +
              `<div id="grid" class="grid" role="grid" aria-rowcount="${stats.shown}">${renderToStaticMarkup(createElement(GridHead))}` +
              `<div id="grid-viewport" tabindex="-1"><div id="grid-spacer"><div id="grid-rows"></div></div></div></div>`,
          );
          const nonPassedTotal = stats.total - stats.counts.passed;
          const passedBudget = Math.max(0, o.max_rows - nonPassedTotal);
          let nonPassed = 0;
          let passed = 0;
          let index = 0;
          const fallback: TestCaseResult[] = [];
          let batch: string[] = [];
          await sink.write('<script type="application/json" id="aeh-cases">[');
          for await (const r of view.results()) {
            const keep = r.status === 'passed' ? passed++ < passedBudget : nonPassed++ < o.max_rows;
            if (!keep) continue;
            if (r.status !== 'passed' && fallback.length < FALLBACK_ROWS) fallback.push(r);
            batch.push(jsonForScript(caseData(r, o.max_field_chars)));
            if (batch.length >= DATA_BATCH) {
              await sink.write((index > 0 ? ',' : '') + batch.join(','));
              index += batch.length;
              batch = [];
            }
          }
          if (batch.length > 0) await sink.write((index > 0 ? ',' : '') + batch.join(','));
          await sink.write(
            `]</script><noscript>${renderToStaticMarkup(createElement(Fallback, { rows: fallback, total: stats.total }))}</noscript>` +
              `</section></main>${renderToStaticMarkup(createElement(Drill))}`,
          );
          await sink.write(`<script>${REPORT_SCRIPT}</script></body></html>\n`);
        });
      },
    };
  },
});

async function collectStats(view: ExperimentView, maxRows: number): Promise<ReportStats> {
  const counts = { passed: 0, failed: 0, error: 0, skipped: 0 };
  const scoreBins = new Array<number>(SCORE_BINS).fill(0);
  const latencies: number[] = [];
  const tags = new Map<string, { passed: number; total: number }>();
  const evaluators = new Set<string>();
  let total = 0;
  let scoreSum = 0;
  let costSum = 0;
  let costCount = 0;
  let tokenSum = 0;
  for await (const r of view.results()) {
    total++;
    counts[r.status]++;
    scoreSum += r.score;
    // Scores are in [0, 1] (the result schema), so the bin is in range; a score of 1 joins the top bin.
    const scoreBin = Math.min(SCORE_BINS - 1, Math.floor(r.score * SCORE_BINS));
    scoreBins[scoreBin] = itemAt(scoreBins, scoreBin) + 1;
    const latency = r.output.latency ?? r.duration;
    if (r.status !== 'skipped' && Number.isFinite(latency)) latencies.push(latency);
    if (r.output.cost !== null) {
      costSum += r.output.cost;
      costCount++;
    }
    if (r.output.usage) tokenSum += r.output.usage.input_tokens + r.output.usage.output_tokens;
    for (const t of r.tags) {
      const s = tags.get(t) ?? { passed: 0, total: 0 };
      s.total++;
      if (r.status === 'passed') s.passed++;
      tags.set(t, s);
    }
    for (const e of r.evaluations) evaluators.add(e.evaluator);
  }
  latencies.sort((a, b) => a - b);
  // Only called with at least one latency.
  const pick = (q: number) =>
    itemAt(latencies, Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1)));
  const latencyMin = latencies[0] ?? 0;
  // Cap the axis at the 99th percentile so one slow outlier does not flatten the chart; the last bin holds the rest.
  const latencyMax = latencies.length > 0 ? Math.max(pick(0.99), latencyMin + 1e-9) : 1;
  const latencyBins = new Array<number>(LATENCY_BINS).fill(0);
  for (const l of latencies) {
    const i = Math.floor(((l - latencyMin) / (latencyMax - latencyMin)) * LATENCY_BINS);
    const latencyBin = Math.min(LATENCY_BINS - 1, Math.max(0, i));
    latencyBins[latencyBin] = itemAt(latencyBins, latencyBin) + 1;
  }
  return {
    total,
    counts,
    scoreSum,
    scoreBins,
    latencyBins,
    latencyMin,
    latencyMax,
    latencyMean: latencies.length > 0 ? latencies.reduce((s, x) => s + x, 0) / latencies.length : null,
    latencyP95: latencies.length > 0 ? pick(0.95) : null,
    costSum,
    costCount,
    tokenSum,
    tags: [...tags.entries()]
      .sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0]))
      .slice(0, 200)
      .map(([tag, s]) => ({ tag, ...s })),
    evaluators: [...evaluators].sort(),
    shown: Math.min(total, maxRows),
  };
}

/** What the drill-down shows for one case (strings pre-formatted and clipped). */
function caseData(r: TestCaseResult, max: number) {
  const o = r.output;
  const calls = toolCalls(o);
  const trace = o.trace;
  const failed = [...new Set(r.evaluations.filter((e) => !e.passed).map((e) => e.evaluator))];
  return {
    id: r.test_id,
    name: r.test_name || r.test_id,
    reason: preview(reasonOf(r), 300),
    preview: preview(outputOf(r), 200),
    failed,
    repeat: r.repeat,
    status: r.status,
    score: r.score,
    duration: r.duration,
    // Pre-formatted with the one shared formatter, so the HTML reads like the console and the viewer.
    call_time: formatSeconds(r.duration),
    reported_latency: (() => {
      const l = reportedLatencyIfDifferent(r.duration, o.latency);
      return l === null ? '' : formatSeconds(l);
    })(),
    attempts: r.attempts,
    cost: o.cost,
    tokens: o.usage
      ? `${o.usage.input_tokens} in / ${o.usage.output_tokens} out tokens${o.usage.estimated ? ' (estimated)' : ''}`
      : '',
    input: clip(inputOf(r), max),
    expected: r.expected === undefined ? '' : clip(pretty(r.expected), max),
    output: clip(outputOf(r), max),
    error: o.error === null ? '' : clip(o.error, max),
    evaluations: r.evaluations.map((e) => ({
      evaluator: e.evaluator,
      score: e.score,
      passed: e.passed,
      error: e.error,
      explanation: clip(e.explanation, max),
      details: Object.keys(e.details).length > 0 ? clip(pretty(e.details), max / 4) : '',
    })),
    tool_calls: calls.slice(0, 500).map((c) => ({
      tool_name: c.tool_name,
      status: c.status,
      duration: c.duration,
      args: Object.keys(c.args).length > 0 ? clip(pretty(c.args), max / 4) : '',
      result: c.result === undefined || c.result === null ? '' : clip(pretty(c.result), max / 4),
      error: c.error ?? '',
    })),
    messages: (trace?.messages ?? []).slice(0, 200).map((m) => ({ role: m.role, content: clip(m.content, max / 4) })),
    spans: (trace?.spans ?? []).slice(0, 200).map((s) => ({
      name: s.name,
      ms: Math.round(s.end_ms - s.start_ms),
      status: s.status,
    })),
    tags: r.tags,
    metadata: Object.keys(r.metadata).length > 0 ? clip(pretty(r.metadata), max / 4) : '',
  };
}

/** One line of text for a grid cell. */
function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
