import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { agentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import { itemAt } from '../../core/item-at.js';
import { TestCase } from '../../core/testcase.js';
import type { PluginContext } from '../../plugins/registry.js';
import { cohenKappa } from '../../stats/agreement.js';
import { bootstrapStatistic } from '../../stats/bootstrap-statistic.js';
import { type Interval, wilson } from '../../stats/wilson.js';
import { createEvaluator } from '../base.js';
import type { JudgeSpec } from './judge.js';

/** One human-labelled example: what the agent was asked, what it answered, and whether a human passed it. */
export const CalibrationLabel = z.strictObject({
  id: z.string().min(1).optional(),
  input: z.union([z.string(), z.record(z.string(), z.unknown())]),
  output: z.string(),
  /** The human verdict: true / "pass" or false / "fail". */
  label: z.union([z.boolean(), z.enum(['pass', 'fail'])]).transform((v) => v === true || v === 'pass'),
  /** Reference answer or rubric for this example (the case's `expected`). */
  expected: z.string().optional(),
});
export type CalibrationLabel = z.infer<typeof CalibrationLabel>;

/** A labels file that cannot be read; the message names file:line:col and the field. */
export class LabelsFileError extends Error {
  readonly code = 'AEH_ERR_LABELS_FILE';
  override name = 'LabelsFileError';
}

/** Read a JSONL labels file, reporting every bad line as file:line:col with the field path. */
export function readLabels(path: string): CalibrationLabel[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new LabelsFileError(`cannot read ${path}: ${errorMessage(err)}`);
  }
  const out: CalibrationLabel[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push(`${path}:${i + 1}:1: not valid JSON (${errorMessage(err)})`);
      return;
    }
    const parsed = CalibrationLabel.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join('.') || '(line)';
        const col = typeof issue.path[0] === 'string' ? raw.indexOf(`"${issue.path[0]}"`) + 1 || 1 : 1;
        problems.push(`${path}:${i + 1}:${col}: ${field}: ${issue.message}`);
      }
      return;
    }
    out.push(parsed.data);
  });
  if (problems.length > 0) throw new LabelsFileError(problems.join('\n'));
  if (out.length === 0) throw new LabelsFileError(`${path}: no labelled examples`);
  return out;
}

export interface CalibrationReport {
  judge: string;
  evaluator: string;
  items: number;
  judged: number;
  judge_errors: { id: string; error: string }[];
  /** Rows: human verdict; columns: judge verdict. */
  confusion: {
    human_pass_judge_pass: number;
    human_pass_judge_fail: number;
    human_fail_judge_pass: number;
    human_fail_judge_fail: number;
  };
  /** Share of judged items where the judge agreed with the human, Wilson 95% interval. */
  agreement: number | null;
  agreement_interval: Interval | null;
  /** Cohen's kappa (chance-corrected agreement), with a seeded percentile bootstrap 95% interval over items. */
  kappa: number | null;
  kappa_interval: Interval | null;
  human_pass_rate: number | null;
  judge_pass_rate: number | null;
  /** judge pass rate - human pass rate: > 0 the judge is lenient, < 0 strict. */
  bias: number | null;
  cost: number;
  cost_unpriced: boolean;
  input_tokens: number;
  output_tokens: number;
}

/** Percentile bootstrap 95% interval of Cohen's kappa, resampling labelled items (seeded, reproducible). */
export function kappaInterval(judge: readonly boolean[], human: readonly boolean[]): Interval | null {
  const b = bootstrapStatistic(judge.length, (idx) =>
    cohenKappa(
      idx.map((i) => itemAt(judge, i)),
      idx.map((i) => itemAt(human, i)),
    ),
  );
  return b ? { lower: b.lower, upper: b.upper } : null;
}

/**
 * Measure a judge against human labels: run the judge evaluator on every labelled example and compare its
 * pass/fail with the human's. Judge failures are listed and left out (an unknown verdict is not a disagreement).
 */
export async function calibrateJudge(
  labels: CalibrationLabel[],
  spec: JudgeSpec,
  ctx: PluginContext,
  options: { evaluator?: string; rubric?: string } = {},
): Promise<CalibrationReport> {
  const evaluatorName = options.evaluator ?? 'llm_rubric';
  const judgeOptions: Record<string, unknown> = {
    provider: spec.provider,
    ...(spec.model ? { model: spec.model } : {}),
  };
  if (options.rubric !== undefined)
    judgeOptions[evaluatorName === 'closed_qa' ? 'criteria' : 'rubric'] = options.rubric;
  const evaluator = createEvaluator({ name: evaluatorName, options: judgeOptions, weight: 1 }, ctx);
  await evaluator.prepare?.();
  const outcomes = await Promise.all(
    labels.map(async (l, i) => {
      const id = l.id ?? `line-${i + 1}`;
      const testCase = TestCase.parse({
        id,
        name: id,
        input: l.input,
        ...(l.expected !== undefined ? { expected: l.expected } : {}),
      });
      const r = await evaluator.evaluate(testCase, agentOutput({ output: l.output }));
      return { id, human: l.label, r };
    }),
  );
  const judge: boolean[] = [];
  const human: boolean[] = [];
  const errors: { id: string; error: string }[] = [];
  let cost = 0;
  let unpriced = false;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const o of outcomes) {
    const j = o.r.details.judge as
      | { cost?: number; cost_unpriced?: boolean; usage?: { input_tokens: number; output_tokens: number } }
      | undefined;
    cost += j?.cost ?? 0;
    unpriced ||= j?.cost_unpriced === true;
    inputTokens += j?.usage?.input_tokens ?? 0;
    outputTokens += j?.usage?.output_tokens ?? 0;
    if (o.r.error) {
      errors.push({ id: o.id, error: o.r.explanation });
      continue;
    }
    judge.push(o.r.passed);
    human.push(o.human);
  }
  const n = judge.length;
  let pp = 0;
  let pf = 0;
  let fp = 0;
  let ff = 0;
  for (let i = 0; i < n; i++) {
    if (human[i] && judge[i]) pp++;
    else if (human[i]) pf++;
    else if (judge[i]) fp++;
    else ff++;
  }
  const agree = pp + ff;
  const kappa = n === 0 ? null : cohenKappa(judge, human);
  return {
    judge: spec.label ?? `${spec.provider}${spec.model ? `/${spec.model}` : ''}`,
    evaluator: evaluatorName,
    items: labels.length,
    judged: n,
    judge_errors: errors,
    confusion: {
      human_pass_judge_pass: pp,
      human_pass_judge_fail: pf,
      human_fail_judge_pass: fp,
      human_fail_judge_fail: ff,
    },
    agreement: n === 0 ? null : agree / n,
    agreement_interval: n === 0 ? null : wilson(agree, n),
    kappa: kappa !== null && Number.isFinite(kappa) ? kappa : null,
    kappa_interval: kappaInterval(judge, human),
    human_pass_rate: n === 0 ? null : (pp + pf) / n,
    judge_pass_rate: n === 0 ? null : (pp + fp) / n,
    bias: n === 0 ? null : (fp - pf) / n,
    cost: Math.round(cost * 1e9) / 1e9,
    cost_unpriced: unpriced,
    input_tokens: inputTokens,
    output_tokens: outputTokens,
  };
}

/** The report as console text. */
export function renderCalibration(r: CalibrationReport, source: string): string {
  const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
  const ci = (i: Interval | null, f: (v: number) => string) => (i ? ` (95% CI ${f(i.lower)} to ${f(i.upper)})` : '');
  const c = r.confusion;
  const bias =
    r.bias === null
      ? 'n/a'
      : r.bias > 0
        ? `lenient: passes ${pct(r.bias)} more items than the humans`
        : r.bias < 0
          ? `strict: passes ${pct(-r.bias)} fewer items than the humans`
          : 'balanced: passes as many items as the humans';
  return [
    `judge ${r.judge} (${r.evaluator}) against ${source}: ${r.items} labelled, ${r.judged} judged${r.judge_errors.length ? `, ${r.judge_errors.length} judge error(s)` : ''}`,
    `agreement ${pct(r.agreement)}${ci(r.agreement_interval, (v) => pct(v))}`,
    `Cohen's kappa ${r.kappa === null ? 'n/a' : r.kappa.toFixed(3)}${ci(r.kappa_interval, (v) => v.toFixed(3))}`,
    'confusion (rows: human, columns: judge)',
    `               judge pass  judge fail`,
    `  human pass   ${String(c.human_pass_judge_pass).padStart(10)}  ${String(c.human_pass_judge_fail).padStart(10)}`,
    `  human fail   ${String(c.human_fail_judge_pass).padStart(10)}  ${String(c.human_fail_judge_fail).padStart(10)}`,
    `bias: ${bias}`,
    `judge spend: $${r.cost.toFixed(6)}${r.cost_unpriced ? ' (incomplete: unpriced judge)' : ''}, ${r.input_tokens + r.output_tokens} tokens`,
    ...r.judge_errors.map((e) => `  judge error on ${e.id}: ${e.error}`),
    '',
  ].join('\n');
}
