import { signText } from '../core/durations.js';
import { markdownCell } from '../reporters/support/text.js';
import { formatNumber, formatP } from './gate.js';
import { headlineText, metricChange } from './headline.js';
import type { CaseFlip, ExperimentComparison, MeasureVerdict, PairedMeasure } from './models.js';

export interface ComparisonMarkdownOptions {
  /**
   * Upper bound on the output's length. GitHub rejects PR comments over 65,536 characters; the default leaves
   * room for a header the CI step may add. Case lists are cut (with a count of what was left out) to fit.
   */
  maxChars?: number;
  /** Cases listed per flip kind before "and N more"; default 25. */
  maxCasesPerList?: number;
}

const VERDICT_LABEL: Record<MeasureVerdict, string> = {
  regression: '🔴 regression',
  worse_not_significant: 'worse, not significant',
  within_tolerance: 'worse, within tolerance',
  unchanged: 'unchanged',
  better_not_significant: 'better, not significant',
  improvement: '🟢 improvement',
  no_data: 'no shared cases',
};

/** The comparison as GitHub-flavoured Markdown: fits a pull-request comment and a job summary. */
export function comparisonMarkdown(c: ExperimentComparison, options: ComparisonMarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? 60_000;
  const perList = options.maxCasesPerList ?? 25;
  const out: string[] = [];
  const gate = c.gate;
  const title =
    c.baseline_name === c.candidate_name
      ? `${markdownCell(c.candidate_name, 80)}: \`${markdownCell(c.baseline_id, 40)}\` → \`${markdownCell(c.candidate_id, 40)}\``
      : `${markdownCell(c.baseline_name, 80)} → ${markdownCell(c.candidate_name, 80)}`;
  out.push(`## Agent comparison: ${title}`, '');
  const rule =
    gate.mode === 'strict'
      ? 'strict: point estimates'
      : `worse by more than the tolerance and significant at α = ${gate.alpha}, Holm-corrected`;
  out.push(
    gate.status === 'inconclusive'
      ? `**⚠️ Gate inconclusive** — a gated measure dropped past the practical bound with too few cases to call it significant, or had no paired cases.`
      : gate.passed
        ? `**✅ Gate passed** — no gated measure regressed (${rule}).`
        : `**❌ Gate failed** — ${gate.violations.length} regression${gate.violations.length === 1 ? '' : 's'} (${rule}).`,
    '',
  );
  for (const v of gate.violations) out.push(`- ${markdownCell(v.message, 400)}`);
  for (const v of gate.inconclusive) out.push(`- ${markdownCell(v.message, 500)}`);
  if (gate.violations.length + gate.inconclusive.length > 0) out.push('');
  const unit = c.paired.unit === 'case' ? 'cases (repeats averaged per case)' : 'case runs';
  out.push(
    `Baseline \`${markdownCell(c.baseline_id, 60)}\` · candidate \`${markdownCell(c.candidate_id, 60)}\` · ` +
      `${c.common_tests} shared case runs, ${c.paired.pairs} paired ${unit}` +
      (c.paired.excluded_quarantined > 0 ? `, ${c.paired.excluded_quarantined} quarantined left out of the gate` : '') +
      (c.only_in_baseline + c.only_in_candidate > 0
        ? ` · ${c.only_in_baseline} only in baseline, ${c.only_in_candidate} only in candidate`
        : ''),
    '',
  );

  const head = c.headline ? c.deltas[c.headline] : undefined;
  if (head) out.push(`**Headline:** ${markdownCell(headlineText(head), 300)}`, '');
  out.push(`### Paired comparison`, '');
  out.push(
    `| Measure | Baseline | Candidate | Δ | ${Math.round(c.paired.level * 100)}% CI of Δ | p | Verdict |`,
    '| :--- | ---: | ---: | ---: | :---: | ---: | :--- |',
  );
  for (const m of c.paired.measures) out.push(measureRow(m));
  out.push(
    '',
    `<sub>Gated: ${c.gate.gated.map((g) => `\`${g}\``).join(', ') || 'none'} (p Holm-adjusted across them; other ` +
      `rows show unadjusted p). Intervals: ${c.paired.measures[0]?.interval.method ?? 'paired bootstrap'}, ` +
      `seed ${c.paired.seed}.</sub>`,
    '',
  );

  const deltas = Object.values(c.deltas);
  if (deltas.length > 0) {
    out.push(
      '### Run metrics',
      '',
      '| Metric | Baseline | Candidate | Δ | Δ% | |',
      '| :--- | ---: | ---: | ---: | ---: | :--- |',
    );
    for (const d of deltas) {
      const mark = d.is_regression ? '▼ worse' : d.is_improvement ? '▲ better' : '';
      out.push(
        `| ${markdownCell(d.name, 60)} | ${markdownCell(d.v1_formatted, 40)} | ${markdownCell(d.v2_formatted, 40)} | ` +
          `${markdownCell(metricChange(d), 40)} | ` +
          `${d.pct_delta === null ? '—' : `${signed(d.pct_delta, 1)}%`} | ${mark} |`,
      );
    }
    out.push('');
  }

  const kinds: Array<[CaseFlip['kind'], string]> = [
    ['newly_failing', '🔴 Newly failing'],
    ['newly_passing', '🟢 Newly passing'],
    ['still_failing', 'Still failing'],
  ];
  const counts = new Map<string, number>();
  for (const f of c.flips) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  out.push('### Case changes', '');
  out.push(kinds.map(([k, label]) => `${label}: **${counts.get(k) ?? 0}**`).join(' · '), '');
  let text = out.join('\n');
  const tail = '\n<sub>Generated by `harness compare`.</sub>\n';
  for (const [kind, label] of kinds) {
    const list = c.flips.filter((f) => f.kind === kind);
    if (list.length === 0) continue;
    const open = kind === 'newly_failing' ? ' open' : '';
    const head = `<details${open}><summary>${label} (${list.length})</summary>\n\n| Case | Repeat | Baseline | Candidate | Score |\n| :--- | ---: | :--- | :--- | :--- |\n`;
    let section = head;
    let shown = 0;
    for (const f of list) {
      if (shown >= perList) break;
      const row =
        `| ${markdownCell(f.test_name, 80)}${f.test_name !== f.test_id ? ` <sub>${markdownCell(f.test_id, 60)}</sub>` : ''}` +
        `${f.quarantined ? ' _(quarantined)_' : ''} | ${f.repeat} | ${f.baseline_status} | ${f.candidate_status} | ` +
        `${f.baseline_score.toFixed(2)} → ${f.candidate_score.toFixed(2)} |\n`;
      if (text.length + section.length + row.length + tail.length + 200 > maxChars) break;
      section += row;
      shown++;
    }
    if (shown < list.length) section += `\n…and ${list.length - shown} more (see \`harness compare --format json\`).\n`;
    section += '\n</details>\n';
    if (text.length + section.length + tail.length > maxChars) break;
    text += `\n${section}`;
  }
  if (c.quarantine.length > 0) {
    const q = `\nQuarantined (reported, never gating): ${c.quarantine
      .slice(0, 30)
      .map((id) => `\`${markdownCell(id, 60)}\``)
      .join(', ')}${c.quarantine.length > 30 ? ` and ${c.quarantine.length - 30} more` : ''}\n`;
    if (text.length + q.length + tail.length <= maxChars) text += q;
  }
  return text + tail;
}

function measureRow(m: PairedMeasure): string {
  const f = (x: number) => formatNumber(x);
  const name = `${m.gated ? '**' : ''}${markdownCell(m.name, 60)}${m.gated ? '**' : ''}`;
  if (m.n === 0) return `| ${name} | — | — | — | — | — | ${VERDICT_LABEL.no_data} |`;
  const pctText = m.pct_delta === null ? '' : ` (${signed(m.pct_delta, 1)}%)`;
  return (
    `| ${name} | ${f(m.baseline_value)} | ${f(m.candidate_value)} | ${signed(m.delta)}${pctText} | ` +
    `[${f(m.interval.lower)}, ${f(m.interval.upper)}] | ${formatP(m.p_adjusted)} | ${VERDICT_LABEL[m.verdict]} |`
  );
}

function signed(x: number, digits?: number): string {
  const abs = Math.abs(x);
  return signText(x, digits === undefined ? formatNumber(abs) : abs.toFixed(digits));
}
