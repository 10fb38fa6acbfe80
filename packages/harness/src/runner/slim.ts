import type { AgentOutput } from '../core/agent.js';
import type { EvaluationResult, TestCaseResult } from '../core/result.js';

const EMPTY_OBJECT: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const EMPTY_LIST: never[] = Object.freeze([]) as unknown as never[];
const MAX_ERROR = 300;

/**
 * The part of a result that metrics need, kept in memory for the whole run: status, scores, timings,
 * usage, cost, error text (truncated). Input, expected, output text, trace, tool-call bodies and
 * evaluation details stay only in the journal. Shared frozen empties keep each copy small.
 */
export function slimResult(r: TestCaseResult): TestCaseResult {
  const o = r.output;
  const output: AgentOutput = {
    output: '',
    error: o.error === null ? null : o.error.length > MAX_ERROR ? `${o.error.slice(0, MAX_ERROR)}…` : o.error,
    latency: o.latency,
    time_to_first_token: o.time_to_first_token,
    tool_calls: EMPTY_LIST,
    trace: null,
    usage: o.usage,
    cost: o.cost,
    cost_is_estimated: o.cost_is_estimated,
    metadata: EMPTY_OBJECT,
  };
  if (o.transient !== undefined) output.transient = o.transient;
  const evaluations = slimEvaluations(r.evaluations);
  return {
    test_id: r.test_id,
    test_name: r.test_name,
    repeat: r.repeat,
    status: r.status,
    tags: r.tags.length === 0 ? EMPTY_LIST : r.tags,
    output,
    evaluations,
    score: r.score,
    duration: r.duration,
    attempts: r.attempts,
    metadata: EMPTY_OBJECT,
  };
}

/**
 * LLM-judge bookkeeping that cost, tokens and judge_agreement metrics read: totals and each panel member's
 * verdict, without prompts or reasoning text.
 */
function slimJudge(judge: unknown): Record<string, unknown> {
  if (judge === null || typeof judge !== 'object') return EMPTY_OBJECT;
  const j = judge as Record<string, unknown>;
  const out: Record<string, unknown> = { cost: j.cost, usage: j.usage, calls: j.calls };
  // Unpriced judges flag the cost metric; the output hash lets flaky_cases tell agent from judge variance.
  if (j.cost_unpriced !== undefined) out.cost_unpriced = j.cost_unpriced;
  if (j.cost_known !== undefined) out.cost_known = j.cost_known;
  if (typeof j.output_sha256 === 'string') out.output_sha256 = j.output_sha256;
  if (Array.isArray(j.panel)) {
    out.panel = (j.panel as Record<string, unknown>[]).map((p) => ({
      judge: p.judge,
      passed: p.passed,
      score: p.score,
    }));
  }
  return out;
}

// Identical slim evaluations (same evaluator, score, verdict, weight) are shared rather than copied: in a
// large run most cases produce one of a handful of distinct ones. The pools are bounded.
const POOL_LIMIT = 4096;
const evalPool = new Map<string, EvaluationResult>();
const listPool = new Map<string, EvaluationResult[]>();

function slimEvaluation(e: EvaluationResult): { key: string | null; value: EvaluationResult } {
  // LLM-judge results keep their cost/usage/panel totals for the cost, tokens and judge_agreement metrics;
  // they differ per case, so they are not pooled.
  if (e.details?.judge) {
    const value = Object.freeze({
      evaluator: e.evaluator,
      score: e.score,
      passed: e.passed,
      explanation: '',
      weight: e.weight,
      error: e.error,
      details: { judge: slimJudge(e.details.judge) },
    }) as EvaluationResult;
    return { key: null, value };
  }
  const key = `${e.evaluator}\u0000${e.score}\u0000${e.passed}\u0000${e.weight}\u0000${e.error}`;
  let value = evalPool.get(key);
  if (!value) {
    value = Object.freeze({
      evaluator: e.evaluator,
      score: e.score,
      passed: e.passed,
      explanation: '',
      weight: e.weight,
      error: e.error,
      details: EMPTY_OBJECT,
    }) as EvaluationResult;
    if (evalPool.size < POOL_LIMIT) evalPool.set(key, value);
  }
  return { key, value };
}

function slimEvaluations(list: readonly EvaluationResult[]): EvaluationResult[] {
  if (list.length === 0) return EMPTY_LIST;
  const parts = list.map(slimEvaluation);
  if (parts.some((p) => p.key === null)) return parts.map((p) => p.value);
  const key = parts.map((p) => p.key).join('\u0001');
  let value = listPool.get(key);
  if (!value) {
    value = Object.freeze(parts.map((p) => p.value)) as EvaluationResult[];
    if (listPool.size < POOL_LIMIT) listPool.set(key, value);
  }
  return value;
}
