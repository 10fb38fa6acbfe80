import { z } from 'zod';
import { formatSeconds } from '../core/durations.js';
import type { CaseStatus, TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import { defineReporter } from './base.js';
import { renderTo } from './support/sink.js';
import { asView, directionLabel, markdownCell, percent, reasonOf, titleCase } from './support/text.js';

const MarkdownOptions = z.strictObject({
  /**
   * Upper bound on the report's length. GitHub caps PR comments at 65,536 characters (job summaries at 1 MiB);
   * rows are cut, with a count of what was left out, to stay under it.
   */
  max_chars: z.number().int().min(2_000).default(60_000),
  /** Most rows in the failures table (the full table takes what room is left). */
  max_failures: z.number().int().min(0).default(100),
});
export type MarkdownOptions = z.infer<typeof MarkdownOptions>;

const STATUS: Record<CaseStatus, string> = {
  passed: '✅ Pass',
  failed: '❌ Fail',
  error: '⚠️ Error',
  skipped: '⏭️ Skip',
};

/**
 * GitHub-flavoured Markdown that fits a pull-request comment or `$GITHUB_STEP_SUMMARY`: run facts, metrics
 * with intervals, thresholds, failures first, then every result in a collapsed table.
 *
 * @example harness export runs/latest --format markdown >> "$GITHUB_STEP_SUMMARY"
 */
export const markdownReporter = defineReporter({
  name: 'markdown',
  description: 'Markdown summary sized for pull-request comments and GitHub job summaries',
  extension: 'md',
  options: MarkdownOptions as z.ZodType<MarkdownOptions>,
  create(options) {
    const o = MarkdownOptions.parse(options ?? {});
    return {
      name: 'markdown',
      async report(run, destination) {
        const view = asView(run);
        return renderTo(destination, async (sink) => {
          for (const part of await renderMarkdown(view, o)) await sink.write(part);
        });
      },
    };
  },
});

async function renderMarkdown(view: ExperimentView, o: MarkdownOptions): Promise<string[]> {
  const h = view.header;
  const counts: Record<CaseStatus, number> = { passed: 0, failed: 0, error: 0, skipped: 0 };
  let total = 0;
  for await (const r of view.results()) {
    counts[r.status]++;
    total++;
  }
  const lines: string[] = [];
  lines.push(`# Evaluation Report: ${markdownCell(h.name, 120)}`, '');
  lines.push(`- **Experiment ID**: \`${markdownCell(h.id, 80)}\``);
  lines.push(
    `- **Suite**: ${markdownCell(h.suite.name, 80)} (v${markdownCell(h.suite.version, 20)})` +
      ` · **Agent**: ${markdownCell(h.agent.label ?? h.agent.adapter, 60)}`,
  );
  lines.push(
    `- **Started**: \`${h.started_at}\`${h.finished_at ? ` · **Finished**: \`${h.finished_at}\`` : ''} · **State**: ${h.state}`,
  );
  lines.push(`- **Total Tests**: ${total}`);
  lines.push(`- **Passed**: ${counts.passed} (${percent(counts.passed, total)})`);
  lines.push(
    `- **Failed**: ${counts.failed + counts.error}` +
      (counts.error > 0 ? ` (${counts.error} agent error${counts.error === 1 ? '' : 's'})` : '') +
      (counts.skipped > 0 ? ` · **Skipped**: ${counts.skipped}` : ''),
  );
  lines.push('', '## Summary Metrics', '');
  lines.push('| Metric | Value | 95% CI | Direction | Description |', '| :--- | :--- | :--- | :--- | :--- |');
  for (const m of Object.values(h.metrics)) {
    const ci = m.interval
      ? `${fmt(m.interval.lower)} – ${fmt(m.interval.upper)}${m.interval.level !== 0.95 ? ` (${Math.round(m.interval.level * 100)}%)` : ''}`
      : '';
    lines.push(
      `| **${markdownCell(titleCase(m.name), 60)}** | \`${markdownCell(m.error ? 'ERR' : m.formatted_value, 40)}\` | ${ci} | ` +
        `${directionLabel(m.direction)} | ${markdownCell(m.error ?? m.description ?? '', 160)} |`,
    );
  }
  if (h.thresholds) {
    const t = h.thresholds;
    lines.push(
      '',
      '## Thresholds',
      '',
      t.passed
        ? `✅ All ${t.checked} thresholds met.`
        : `❌ ${t.violations.length} of ${t.checked} thresholds violated:`,
    );
    for (const v of t.violations) lines.push(`- ${markdownCell(v.message, 300)}`);
  }
  lines.push('');
  let text = lines.join('\n');
  const budget = o.max_chars - 200;

  const notPassed = counts.failed + counts.error;
  if (notPassed > 0) {
    let section = `\n## Failures (${notPassed})\n\n| Status | Test Case | Score | Call time | Reason |\n| :---: | :--- | :---: | :---: | :--- |\n`;
    let shown = 0;
    for await (const r of view.results()) {
      if (r.status !== 'failed' && r.status !== 'error') continue;
      const line = row(r, 300);
      if (shown >= o.max_failures || text.length + section.length + line.length > budget * 0.6) break;
      section += line;
      shown++;
    }
    if (shown < notPassed) section += `\n…and ${notPassed - shown} more failures (see the HTML or JSON report).\n`;
    text += section;
  }
  let all = `\n## Test Results\n\n<details><summary>All ${total} results</summary>\n\n| Status | Test Case | Score | Call time | Reason |\n| :---: | :--- | :---: | :---: | :--- |\n`;
  let shown = 0;
  const closing = '\n</details>\n';
  for await (const r of view.results()) {
    const line = row(r, 120);
    if (text.length + all.length + line.length + closing.length + 120 > budget) break;
    all += line;
    shown++;
  }
  if (shown < total) all += `\n…and ${total - shown} more results (see the HTML or JSON report).\n`;
  return [text, all, closing];
}

function row(r: TestCaseResult, reasonMax: number): string {
  const name = r.test_name || r.test_id;
  const repeat = r.repeat > 0 ? ` (repeat ${r.repeat})` : '';
  return (
    `| ${STATUS[r.status]} | ${markdownCell(name, 80)}${repeat} | \`${r.score.toFixed(2)}\` | ` +
    `\`${formatSeconds(r.duration)}\` | ${markdownCell(reasonOf(r), reasonMax)} |\n`
  );
}

function fmt(x: number): string {
  return Number(x.toPrecision(3)).toString();
}
