import { z } from 'zod';
import { outputText } from '../core/agent.js';
import { inputText } from '../core/testcase.js';
import { expectedText, isMissing } from './support/expected.js';
import { verdictText } from './support/judge.js';
import { defineJudgeEvaluator } from './support/judge-evaluator.js';

export const FACTUALITY_PROMPT_VERSION = 'factuality@1';

const Category = z.enum(['A', 'B', 'C', 'D', 'E']);
type Category = z.infer<typeof Category>;

/** Default score per category: agreeing answers score high, a contradiction scores 0. */
export const FACTUALITY_SCORES: Record<Category, number> = { A: 0.4, B: 0.6, C: 1, D: 0, E: 1 };

interface Opts extends Record<string, unknown> {
  reference?: string;
  fail_categories: Category[];
  scores?: Partial<Record<Category, number>>;
}

/**
 * An LLM judge compares the output's facts with the reference answer (the case's `expected`) and picks a
 * category: A subset, B superset, C same, D contradiction, E differences that do not matter. D fails.
 * @example { name: factuality, options: { provider: anthropic } }
 */
export const factuality = defineJudgeEvaluator<Opts>({
  name: 'factuality',
  description: "LLM judge checks the output's facts against the expected answer (subset/superset/same/contradiction).",
  promptVersion: FACTUALITY_PROMPT_VERSION,
  stage: 'judge_factuality',
  options: {
    /** Reference answer; defaults to the case's `expected`. */
    reference: z.string().min(1).optional(),
    /** Categories that fail the case. */
    fail_categories: z.array(Category).default(['D']),
    /** Override the score of any category. */
    scores: z.partialRecord(Category, z.number().min(0).max(1)).optional(),
  },
  system: () =>
    [
      'You compare the factual content of a submitted answer with an expert reference answer to the same question.',
      'Ignore differences of style, grammar, punctuation and length. Choose exactly one category:',
      '(A) the submission is a subset of the reference and fully consistent with it;',
      '(B) the submission is a superset of the reference and fully consistent with it;',
      '(C) the submission contains the same details as the reference;',
      '(D) the submission and the reference disagree on at least one fact;',
      '(E) they differ, but the differences do not matter for factuality.',
      'Reply with JSON only: {"reasoning": "<short justification>", "category": "A" | "B" | "C" | "D" | "E"}.',
    ].join(' '),
  sections(o, testCase, output) {
    const reference = o.reference ?? (isMissing(testCase.expected) ? undefined : expectedText(testCase.expected));
    if (!reference) return 'no reference answer (option `reference` or case `expected`)';
    return [
      { title: 'Question', text: inputText(testCase), untrusted: true },
      { title: 'Expert reference answer', text: reference, untrusted: false },
      { title: 'Submitted answer', text: outputText(output), untrusted: true },
    ];
  },
  interpret(o, verdict, judge) {
    const raw = verdictText(verdict, 'category')
      .trim()
      .replace(/^\(?([A-Ea-e])\)?.*$/s, '$1')
      .toUpperCase();
    const parsed = Category.safeParse(raw);
    if (!parsed.success)
      throw new Error(`judge ${judge} returned no category A-E (got ${JSON.stringify(verdict.category)})`);
    const category = parsed.data;
    const score = o.scores?.[category] ?? FACTUALITY_SCORES[category];
    return {
      score,
      passed: !o.fail_categories.includes(category),
      reasoning: `category ${category}: ${verdictText(verdict, 'reasoning')}`,
      extra: { category },
    };
  },
});
