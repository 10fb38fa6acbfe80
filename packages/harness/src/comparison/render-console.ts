import Table from 'cli-table3';
import pc from 'picocolors';
import { colourWanted, tableStyle } from '../core/colour.js';
import { signText } from '../core/durations.js';
import { EPSILON, formatNumber, formatP } from './gate.js';
import { headlineText, metricChange } from './headline.js';
import type { ExperimentComparison, MeasureVerdict } from './models.js';

export interface ComparisonConsoleOptions {
  /** ANSI colours; default: only when stdout is a TTY and NO_COLOR is unset. */
  color?: boolean;
  /** Cases listed per flip kind; default 10. */
  maxCasesPerList?: number;
}

/** The comparison as terminal tables. */
export function comparisonConsole(c: ExperimentComparison, options: ComparisonConsoleOptions = {}): string {
  const color = options.color ?? colourWanted(process.stdout);
  const paint = pc.createColors(color);
  const perList = options.maxCasesPerList ?? 10;
  // cli-table3 colours borders and headers even when piped; switch that off with colour (deps.md gotcha 16).
  const style = tableStyle(color);
  const lines: string[] = [];
  lines.push(
    `${paint.bold('Comparison')} ${c.baseline_name} (${c.baseline_id}) → ${c.candidate_name} (${c.candidate_id})`,
    `${c.common_tests} shared case runs · ${c.paired.pairs} paired ${c.paired.unit === 'case' ? 'cases (repeats averaged)' : 'case runs'}` +
      (c.paired.excluded_quarantined ? ` · ${c.paired.excluded_quarantined} quarantined (not gated)` : '') +
      (c.only_in_baseline || c.only_in_candidate
        ? ` · ${c.only_in_baseline} only in baseline, ${c.only_in_candidate} only in candidate`
        : ''),
    '',
  );
  const head = c.headline ? c.deltas[c.headline] : undefined;
  if (head) lines.push(`${paint.bold('Headline')} ${headlineText(head)}`, '');
  const verdict: Record<MeasureVerdict, string> = {
    regression: paint.red('REGRESSION'),
    worse_not_significant: paint.yellow('worse (n.s.)'),
    within_tolerance: 'worse (within tol.)',
    unchanged: paint.dim('unchanged'),
    better_not_significant: 'better (n.s.)',
    improvement: paint.green('IMPROVEMENT'),
    no_data: paint.dim('no data'),
  };
  const level = Math.round(c.paired.level * 100);
  const measures = new Table({
    head: ['Measure', 'Baseline', 'Candidate', 'Δ', `${level}% CI`, 'p', 'Verdict'],
    style,
    colAligns: ['left', 'right', 'right', 'right', 'center', 'right', 'left'],
  });
  for (const m of c.paired.measures) {
    measures.push([
      m.gated ? `${m.name} *` : m.name,
      m.n ? formatNumber(m.baseline_value) : '—',
      m.n ? formatNumber(m.candidate_value) : '—',
      m.n ? signed(m.delta) : '—',
      m.n ? `[${formatNumber(m.interval.lower)}, ${formatNumber(m.interval.upper)}]` : '—',
      formatP(m.p_adjusted),
      verdict[m.verdict],
    ]);
  }
  lines.push(
    measures.toString(),
    paint.dim('* gated; p Holm-adjusted across gated measures, unadjusted otherwise'),
    '',
  );
  const deltas = Object.values(c.deltas);
  if (deltas.length > 0) {
    const metrics = new Table({ head: ['Metric', 'Baseline', 'Candidate', 'Δ', 'Δ%', ''], style });
    for (const d of deltas) {
      metrics.push([
        d.name,
        d.v1_formatted,
        d.v2_formatted,
        metricChange(d),
        d.pct_delta === null ? '—' : `${signed(Number(d.pct_delta.toFixed(1)))}%`,
        d.is_regression ? paint.red('▼ worse') : d.is_improvement ? paint.green('▲ better') : '',
      ]);
    }
    lines.push(metrics.toString(), '');
  }
  for (const [kind, label] of [
    ['newly_failing', 'Newly failing'],
    ['newly_passing', 'Newly passing'],
    ['still_failing', 'Still failing'],
  ] as const) {
    const list = c.flips.filter((f) => f.kind === kind);
    if (list.length === 0) continue;
    lines.push(`${paint.bold(label)} (${list.length})`);
    for (const f of list.slice(0, perList)) {
      lines.push(`  ${f.key}  ${f.test_name}${f.quarantined ? paint.dim(' (quarantined)') : ''}`);
    }
    if (list.length > perList) lines.push(paint.dim(`  …and ${list.length - perList} more`));
  }
  lines.push('');
  const g = c.gate;
  if (g.status === 'inconclusive') {
    lines.push(
      paint.yellow(
        `Gate inconclusive: ${g.inconclusive.length} gated measure${g.inconclusive.length === 1 ? '' : 's'} dropped past the practical bound without a significant test, or had no paired cases.`,
      ),
    );
    for (const v of g.inconclusive) lines.push(`  - ${v.message}`);
  } else if (g.passed) {
    lines.push(paint.green(`Gate passed (${g.mode === 'strict' ? 'strict' : `alpha ${g.alpha}, Holm`}).`));
  } else {
    lines.push(paint.red(`Gate failed: ${g.violations.length} regression${g.violations.length === 1 ? '' : 's'}.`));
    for (const v of g.violations) lines.push(`  - ${v.message}`);
  }
  return `${lines.join('\n')}\n`;
}

function signed(x: number): string {
  // Float noise (0.00069 - 0.00069 = 1e-19) is no change: below the comparator's epsilon it reads 0.
  if (Math.abs(x) < EPSILON) return '0';
  return signText(x, formatNumber(Math.abs(x)));
}
