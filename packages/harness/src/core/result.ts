import { z } from 'zod';
import { AgentOutput } from './agent.js';

const JsonObject = z.record(z.string(), z.unknown());

/** One evaluator's verdict on one output. Scores are always in [0, 1]. */
export const EvaluationResult = z.object({
  evaluator: z.string().min(1),
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  explanation: z.string().default(''),
  weight: z.number().min(0).default(1),
  /** True when the evaluator itself failed (threw, or its options were invalid). */
  error: z.boolean().default(false),
  details: JsonObject.default({}),
});
export type EvaluationResult = z.infer<typeof EvaluationResult>;
export type EvaluationResultInput = z.input<typeof EvaluationResult>;

export const CaseStatus = z.enum(['passed', 'failed', 'error', 'skipped']);
export type CaseStatus = z.infer<typeof CaseStatus>;

/** The outcome of one case x repeat. */
export const TestCaseResult = z.object({
  test_id: z.string().min(1),
  test_name: z.string().default(''),
  /** 0-based repeat index. */
  repeat: z.number().int().min(0).default(0),
  status: CaseStatus,
  tags: z.array(z.string()).default([]),
  input: z.union([z.string(), JsonObject]).optional(),
  expected: z.unknown().optional(),
  output: AgentOutput,
  evaluations: z.array(EvaluationResult).default([]),
  /** Weighted mean of evaluation scores (0 when errored, 1/0 by status when there are none). */
  score: z.number().min(0).max(1).default(0),
  /** Seconds of wall clock spent on the agent call (last attempt). */
  duration: z.number().min(0).default(0),
  attempts: z.number().int().min(1).default(1),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  metadata: JsonObject.default({}),
});
export type TestCaseResult = z.infer<typeof TestCaseResult>;
export type TestCaseResultInput = z.input<typeof TestCaseResult>;

/** The journal key of a case run: stable across resumes and shards. */
export function resultKey(result: Pick<TestCaseResult, 'test_id' | 'repeat'>): string {
  return `${result.test_id}#${result.repeat}`;
}

/** Weighted mean of scores; with no evaluations, 1 when passed else 0. */
export function weightedScore(evaluations: readonly EvaluationResult[], passed: boolean): number {
  const total = evaluations.reduce((s, e) => s + e.weight, 0);
  if (evaluations.length === 0 || total === 0) return passed ? 1 : 0;
  return evaluations.reduce((s, e) => s + e.score * e.weight, 0) / total;
}
