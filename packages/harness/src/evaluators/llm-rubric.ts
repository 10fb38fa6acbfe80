import { z } from 'zod';
import { expectedText, isMissing } from './support/expected.js';
import { defineJudgeEvaluator, inputAndOutput } from './support/judge-evaluator.js';

export const LLM_RUBRIC_PROMPT_VERSION = 'llm_rubric@2';

/**
 * An LLM judge grades the output against a rubric on a numeric scale (default 0-10), normalised to [0, 1];
 * passes at 0.5 unless `threshold` says otherwise. The agent's output reaches the judge fenced as untrusted
 * data. Judge provider, model, prompt version, tokens and cost are recorded in details.judge.
 * @example { name: llm_rubric, options: { provider: openai, model: gpt-4o-mini, rubric: 'Apologises and offers a refund' } }
 */
export const llmRubric = defineJudgeEvaluator({
  name: 'llm_rubric',
  example: { provider: 'openai', model: 'gpt-4o-mini', rubric: 'Apologises and offers a refund' },
  description:
    'LLM judge scores the output against a rubric on a scale (default 0-10) with reasoning; supports judge panels.',
  promptVersion: LLM_RUBRIC_PROMPT_VERSION,
  stage: 'judge_llm_rubric',
  options: {
    /** What a good answer does; defaults to the case's `expected`. */
    rubric: z.string().min(1).optional(),
    /** Score range the judge uses, [lowest, highest]. */
    scale: z.tuple([z.number(), z.number()]).default([0, 10]),
    /** Show the judge the case input as well as the output. */
    include_input: z.boolean().default(true),
  },
  refine(o, ctx) {
    if (o.scale[0] >= o.scale[1])
      ctx.addIssue({
        code: 'custom',
        path: ['scale'],
        message: 'scale must be [lowest, highest] with lowest < highest',
      });
  },
  system: (o) =>
    [
      "You are a careful, impartial grader of an AI agent's response.",
      `Grade how well the response satisfies the rubric, on a scale from ${o.scale[0]} (not at all) to ${o.scale[1]} (fully).`,
      'Think about each requirement of the rubric, then decide.',
      `Reply with JSON only: {"reasoning": "<two or three sentences>", "score": <number from ${o.scale[0]} to ${o.scale[1]}>}.`,
    ].join(' '),
  // The range is part of the schema: an out-of-scale score is a malformed verdict, never clamped into range.
  verdict: (o) => z.strictObject({ reasoning: z.string(), score: z.number().min(o.scale[0]).max(o.scale[1]) }),
  sections(o, testCase, output) {
    const rubric = o.rubric ?? (isMissing(testCase.expected) ? undefined : expectedText(testCase.expected));
    if (!rubric) return 'no rubric given (option `rubric` or case `expected`)';
    return [{ title: 'Rubric', text: rubric, untrusted: false }, ...inputAndOutput(testCase, output, o.include_input)];
  },
  interpret(o, verdict) {
    const raw = verdict.score as number;
    const [lo, hi] = o.scale;
    const score = (raw - lo) / (hi - lo);
    return {
      score,
      passed: score >= 0.5,
      reasoning: verdict.reasoning as string,
      extra: { raw_score: raw, scale: o.scale },
    };
  },
});
