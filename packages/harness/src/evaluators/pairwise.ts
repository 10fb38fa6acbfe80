import { z } from 'zod';
import type { PluginContext } from '../plugins/registry.js';
import {
  Judge,
  JudgeCallError,
  type JudgeCallRecord,
  type JudgeCallSettings,
  type JudgeSpec,
  type JudgeTranscript,
  judgeTotals,
} from './support/judge.js';
import { buildJudgeRequest } from './support/judge-evaluator.js';

export const PAIRWISE_PROMPT_VERSION = 'pairwise@2';

/** The only verdict accepted from a pairwise judge. */
const PairwiseVerdict = z.strictObject({ reasoning: z.string(), winner: z.enum(['1', '2', 'tie']) });

export type PairwiseWinner = 'A' | 'B' | 'tie';

export interface PairwiseInput {
  /** The task both agents were given. */
  input: string;
  /** Output of the first agent (e.g. the baseline run). */
  outputA: string;
  /** Output of the second agent (e.g. the candidate run). */
  outputB: string;
  /** What "better" means; a general helpfulness and correctness criterion when omitted. */
  criteria?: string;
  /** Reference answer, if the case has one. */
  reference?: string;
}

export interface PairwiseResult {
  winner: PairwiseWinner;
  /** True when the two orderings agreed; a disagreement is reported as a tie (position bias). */
  consistent: boolean;
  reasoning: string;
  judge: {
    provider: string;
    model: string;
    prompt_version: string;
    calls: number;
    usage: { input_tokens: number; output_tokens: number; estimated: boolean };
    cost: number;
    cost_is_estimated: boolean;
    cost_unpriced: boolean;
    cached: number;
  };
  /** Prompt and reply of each call (A first, then B first), for audit. */
  transcripts: JudgeTranscript[];
}

/**
 * Ask an LLM judge which of two outputs for the same task is better (used by `harness compare`). The judge
 * sees both orders (A first, then B first) to cancel position bias: if the two calls disagree the result is
 * a tie with `consistent: false`. Both outputs are fenced as untrusted data.
 *
 * @example
 * const r = await judgePairwise({ provider: 'openai', model: 'gpt-4o-mini' }, ctx, { input, outputA, outputB });
 * r.winner; // 'A' | 'B' | 'tie'
 */
export async function judgePairwise(
  spec: JudgeSpec,
  ctx: PluginContext,
  item: PairwiseInput,
  signal?: AbortSignal,
  settings: Partial<JudgeCallSettings> = {},
): Promise<PairwiseResult> {
  const judge = new Judge(spec, ctx, settings);
  const system = [
    'You compare two responses to the same task and decide which one is better.',
    `Criteria: ${item.criteria ?? 'correctness first, then helpfulness, completeness and clarity.'}`,
    'Do not prefer a response for its position or its length.',
    'Reply with JSON only: {"reasoning": "<short justification>", "winner": "1" | "2" | "tie"}.',
  ].join(' ');
  const ask = async (first: string, second: string) => {
    const sections = [
      { title: 'Task', text: item.input, untrusted: true },
      ...(item.reference ? [{ title: 'Reference answer', text: item.reference, untrusted: false }] : []),
      { title: 'Response 1', text: first, untrusted: true },
      { title: 'Response 2', text: second, untrusted: true },
    ];
    return judge.ask(
      buildJudgeRequest('judge_pairwise', system, sections, 600, 0),
      PAIRWISE_PROMPT_VERSION,
      PairwiseVerdict,
      signal,
    );
  };
  const ab = await ask(item.outputA, item.outputB);
  let ba: Awaited<ReturnType<typeof ask>>;
  try {
    ba = await ask(item.outputB, item.outputA);
  } catch (err) {
    // The first order was answered and paid for: its spend stays on the failure's record.
    if (!(err instanceof JudgeCallError)) throw err;
    const r = err.record;
    const paid: JudgeCallRecord = {
      ...r,
      usage: {
        input_tokens: r.usage.input_tokens + ab.record.usage.input_tokens,
        output_tokens: r.usage.output_tokens + ab.record.usage.output_tokens,
        estimated: r.usage.estimated || ab.record.usage.estimated,
      },
      cost: r.cost + ab.record.cost,
      cost_known: r.cost_known && ab.record.cost_known,
    };
    throw new JudgeCallError(err.message, err.judge, paid, err.transcript);
  }
  // Map both to A/B: in the second call response 1 is B.
  const v1: PairwiseWinner = ab.verdict.winner === '1' ? 'A' : ab.verdict.winner === '2' ? 'B' : 'tie';
  const v2: PairwiseWinner = ba.verdict.winner === '1' ? 'B' : ba.verdict.winner === '2' ? 'A' : 'tie';
  const consistent = v1 === v2;
  const records: JudgeCallRecord[] = [ab.record, ba.record];
  const totals = judgeTotals(records);
  return {
    winner: consistent ? v1 : 'tie',
    consistent,
    reasoning: consistent
      ? ab.verdict.reasoning
      : `the judge changed its mind when the order was swapped (${v1} then ${v2}); counted as a tie`,
    judge: {
      provider: ab.record.provider,
      model: ab.record.model,
      prompt_version: PAIRWISE_PROMPT_VERSION,
      calls: 2,
      usage: totals.usage,
      cost: totals.cost,
      cost_is_estimated: totals.cost_is_estimated,
      cost_unpriced: totals.cost_unpriced,
      cached: totals.cached,
    },
    transcripts: [ab.transcript, ba.transcript],
  };
}
