import { z } from 'zod';
import { outputText } from '../core/agent.js';
import { inputText } from '../core/testcase.js';
import { expectedText, isMissing } from './support/expected.js';
import { defineJudgeEvaluator } from './support/judge-evaluator.js';

export const CLOSED_QA_PROMPT_VERSION = 'closed_qa@2';

/**
 * An LLM judge answers yes or no: does the output answer the question and meet the criteria (and agree
 * with the case's `expected`, when there is one)? Score 1 or 0.
 * @example { name: closed_qa, options: { provider: openai, criteria: 'Gives the exact refund window in days' } }
 */
export const closedQa = defineJudgeEvaluator({
  name: 'closed_qa',
  example: { provider: 'openai', criteria: 'Gives the exact refund window in days' },
  description: 'LLM judge decides yes/no whether the output answers the question and meets the given criteria.',
  promptVersion: CLOSED_QA_PROMPT_VERSION,
  stage: 'judge_closed_qa',
  options: {
    /** What the answer must do. */
    criteria: z.string().min(1).default('The answer is correct, relevant to the question and complete.'),
    /** Show the case's `expected` to the judge as the reference answer. */
    use_expected: z.boolean().default(true),
  },
  system: () =>
    [
      'You decide whether a submitted answer to a question meets the stated criteria.',
      'If a reference answer is given, a submission that contradicts it does not meet the criteria.',
      'Reply with JSON only: {"reasoning": "<short justification>", "meets_criteria": true | false}.',
    ].join(' '),
  verdict: () => z.strictObject({ reasoning: z.string(), meets_criteria: z.boolean() }),
  sections(o, testCase, output) {
    const sections = [
      { title: 'Criteria', text: o.criteria, untrusted: false },
      { title: 'Question', text: inputText(testCase), untrusted: true },
    ];
    if (o.use_expected && !isMissing(testCase.expected)) {
      sections.push({ title: 'Reference answer', text: expectedText(testCase.expected), untrusted: false });
    }
    sections.push({ title: 'Submitted answer', text: outputText(output), untrusted: true });
    return sections;
  },
  interpret(_o, verdict) {
    const v = verdict.meets_criteria === true;
    return { score: v ? 1 : 0, passed: v, reasoning: verdict.reasoning as string };
  },
});
