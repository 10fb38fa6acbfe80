import { isError, outputText } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { resultKey, type TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import { judgePairwise, type PairwiseWinner } from '../evaluators/pairwise.js';
import { expectedText, isMissing } from '../evaluators/support/expected.js';
import { JudgeCallError, JudgeSpec, judgeTotals } from '../evaluators/support/judge.js';
import { JudgeSession } from '../evaluators/support/judge-cache.js';
import type { PluginContext } from '../plugins/registry.js';
import { type Interval, wilson } from '../stats/wilson.js';

/** Thrown for a `--judge` value that does not name a judge (a usage error). */
export class JudgeSpecError extends Error {
  readonly code = 'AEH_ERR_JUDGE_SPEC';
  override name = 'JudgeSpecError';
}

/** `--judge openai/gpt-4o-mini` (or just `openai`) as a judge spec; the label is the text given. */
export function parseJudgeFlag(text: string): JudgeSpec {
  const m = /^([a-z][a-z0-9_]*)(?:\/(.+))?$/.exec(text.trim());
  if (!m) {
    throw new JudgeSpecError(`--judge expects <provider>[/<model>], e.g. openai/gpt-4o-mini (got '${text}')`);
  }
  return JudgeSpec.parse({ provider: m[1], ...(m[2] ? { model: m[2] } : {}) });
}

/** One paired case and the judge's decision (baseline is A, candidate is B). */
export interface PairwiseCase {
  key: string;
  winner: 'candidate' | 'baseline' | 'tie' | null;
  consistent: boolean | null;
  reasoning: string;
  error?: string;
}

export interface PairwiseSummary {
  judge: string;
  /** Pairs both runs answered (agent errors on either side are left out: there is nothing to compare). */
  pairs: number;
  judged: number;
  candidate_wins: number;
  baseline_wins: number;
  ties: number;
  /** Ties that came from the judge changing its mind when the order was swapped (position bias). */
  inconsistent: number;
  errors: number;
  /** Candidate win rate with ties counted half: (wins + ties / 2) / judged. */
  win_rate: number | null;
  /** Wilson 95% score interval on the half-counted wins. */
  interval: Interval | null;
  usage: { input_tokens: number; output_tokens: number };
  cost: number;
  cost_unpriced: boolean;
  cases: PairwiseCase[];
}

async function byKey(view: ExperimentView): Promise<Map<string, TestCaseResult>> {
  const out = new Map<string, TestCaseResult>();
  for await (const r of view.results()) out.set(resultKey(r), r);
  return out;
}

function inputOf(r: TestCaseResult): string {
  if (r.input === undefined) return '';
  return typeof r.input === 'string' ? r.input : JSON.stringify(r.input);
}

/**
 * Grade paired outputs of two runs with a pairwise judge (both orders, disagreement is a tie) and summarise the
 * candidate's win rate with a Wilson 95% interval. Pairs are matched by case id and repeat; pairs where either
 * agent errored are counted in `pairs` but not judged; a judge failure on a pair is recorded, not fatal.
 */
export async function judgeRuns(
  baseline: ExperimentView,
  candidate: ExperimentView,
  spec: JudgeSpec,
  ctx: PluginContext,
  options: { criteria?: string; limit?: number; signal?: AbortSignal } = {},
): Promise<PairwiseSummary> {
  const a = await byKey(baseline);
  const b = await byKey(candidate);
  const session = new JudgeSession();
  const cases: PairwiseCase[] = [];
  const records = [];
  let pairs = 0;
  for (const [key, ra] of a) {
    const rb = b.get(key);
    if (!rb || isError(ra.output) || isError(rb.output)) continue;
    pairs++;
    if (options.limit !== undefined && cases.length >= options.limit) continue;
    try {
      const r = await judgePairwise(
        spec,
        ctx,
        {
          input: inputOf(ra),
          outputA: outputText(ra.output),
          outputB: outputText(rb.output),
          criteria: options.criteria,
          reference: isMissing(ra.expected) ? undefined : expectedText(ra.expected),
        },
        options.signal,
        { session },
      );
      records.push(r.judge);
      const winner: PairwiseWinner = r.winner;
      cases.push({
        key,
        winner: winner === 'B' ? 'candidate' : winner === 'A' ? 'baseline' : 'tie',
        consistent: r.consistent,
        reasoning: r.reasoning,
      });
    } catch (err) {
      if (err instanceof JudgeCallError)
        records.push({ ...err.record, calls: 1, cost_unpriced: !err.record.cost_known });
      cases.push({
        key,
        winner: null,
        consistent: null,
        reasoning: '',
        error: errorMessage(err),
      });
    }
  }
  const judged = cases.filter((c) => c.winner !== null);
  const wins = judged.filter((c) => c.winner === 'candidate').length;
  const losses = judged.filter((c) => c.winner === 'baseline').length;
  const ties = judged.length - wins - losses;
  const n = judged.length;
  // Ties count half a win for each side, the usual convention for preference win rates.
  const halfWins = wins + ties / 2;
  const totals = judgeTotals(
    records.map((r) => ({
      provider: r.provider,
      model: r.model,
      prompt_version: r.prompt_version,
      usage: { ...r.usage, estimated: r.usage.estimated },
      cost: r.cost,
      cost_is_estimated: r.cost_is_estimated,
      cost_known: !r.cost_unpriced,
      latency_ms: 0,
      attempts: 0,
      cached: false,
    })),
  );
  return {
    judge: spec.label ?? `${spec.provider}${spec.model ? `/${spec.model}` : ''}`,
    pairs,
    judged: n,
    candidate_wins: wins,
    baseline_wins: losses,
    ties,
    inconsistent: judged.filter((c) => c.consistent === false).length,
    errors: cases.length - n,
    win_rate: n === 0 ? null : halfWins / n,
    interval: n === 0 ? null : wilson(halfWins, n),
    usage: { input_tokens: totals.usage.input_tokens, output_tokens: totals.usage.output_tokens },
    cost: totals.cost,
    cost_unpriced: totals.cost_unpriced,
    cases,
  };
}

/** The pairwise section of a console or Markdown comparison. */
export function renderPairwise(s: PairwiseSummary, format: 'console' | 'markdown'): string {
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const rate =
    s.win_rate === null || s.interval === null
      ? 'n/a (no pair judged)'
      : `${pct(s.win_rate)} (95% CI ${pct(s.interval.lower)}-${pct(s.interval.upper)})`;
  const lines = [
    format === 'markdown' ? `\n## Pairwise judge (${s.judge})\n` : `\nPairwise judge (${s.judge})`,
    `candidate win rate: ${rate}, ties counted half`,
    `${s.judged} of ${s.pairs} pairs judged: candidate ${s.candidate_wins}, baseline ${s.baseline_wins}, ties ${s.ties} (${s.inconsistent} from position bias)${s.errors ? `, ${s.errors} judge error(s)` : ''}`,
    `judge spend: $${s.cost.toFixed(6)}${s.cost_unpriced ? ' (incomplete: unpriced judge)' : ''}, ${s.usage.input_tokens + s.usage.output_tokens} tokens`,
  ];
  for (const c of s.cases.filter((x) => x.error)) lines.push(`  judge error on ${c.key}: ${c.error}`);
  return `${lines.join(format === 'markdown' ? '\n\n' : '\n')}\n`;
}
