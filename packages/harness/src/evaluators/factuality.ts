import { z } from 'zod';
import { outputText } from '../core/agent.js';
import { inputText } from '../core/testcase.js';
import { expectedText, isMissing } from './support/expected.js';
import { defineJudgeEvaluator } from './support/judge-evaluator.js';

export const FACTUALITY_PROMPT_VERSION = 'factuality@2';

/**
 * The judge's answer is one of these names, enforced by the verdict schema. Letters are never read from the
 * answer: "Contradiction" once scored as category C because its first letter was C.
 */
export const FactualityCategory = z.enum(['subset', 'superset', 'same', 'contradiction', 'immaterial_difference']);
export type FactualityCategory = z.infer<typeof FactualityCategory>;

/** The classic letters, accepted in options only (fail_categories, scores) for suites written against them. */
const LETTERS: Record<string, FactualityCategory> = {
  A: 'subset',
  B: 'superset',
  C: 'same',
  D: 'contradiction',
  E: 'immaterial_difference',
};
const CategoryOption = z
  .union([FactualityCategory, z.enum(['A', 'B', 'C', 'D', 'E'])])
  .transform((c): FactualityCategory => LETTERS[c] ?? (c as FactualityCategory));

/** Default score per category: agreeing answers score high, a contradiction scores 0. */
export const FACTUALITY_SCORES: Record<FactualityCategory, number> = {
  subset: 0.4,
  superset: 0.6,
  same: 1,
  contradiction: 0,
  immaterial_difference: 1,
};

/**
 * An LLM judge compares the output's facts with the reference answer (the case's `expected`) and names a
 * category: subset, superset, same, contradiction, or immaterial_difference. A contradiction fails.
 * @example { name: factuality, options: { provider: anthropic } }
 */
export const factuality = defineJudgeEvaluator({
  name: 'factuality',
  example: { provider: 'anthropic' },
  description:
    "LLM judge checks the output's facts against the expected answer (subset/superset/same/contradiction/immaterial_difference).",
  promptVersion: FACTUALITY_PROMPT_VERSION,
  stage: 'judge_factuality',
  options: {
    /** Reference answer; defaults to the case's `expected`. */
    reference: z.string().min(1).optional(),
    /** Categories that fail the case (names, or the letters A-E). */
    fail_categories: z.array(CategoryOption).default(['contradiction']),
    /** Override the score of any category (names, or the letters A-E). */
    scores: z.record(z.string(), z.number().min(0).max(1)).optional(),
  },
  refine(o, ctx) {
    for (const key of Object.keys(o.scores ?? {})) {
      if (!CategoryOption.safeParse(key).success) {
        ctx.addIssue({
          code: 'custom',
          path: ['scores', key],
          message: `unknown category; expected one of ${FactualityCategory.options.join(', ')} (or A-E)`,
        });
      }
    }
  },
  system: () =>
    [
      'You compare the factual content of a submitted answer with an expert reference answer to the same question.',
      'Ignore differences of style, grammar, punctuation and length. Choose exactly one category:',
      '"subset": the submission is a subset of the reference and fully consistent with it;',
      '"superset": the submission is a superset of the reference and fully consistent with it;',
      '"same": the submission contains the same details as the reference;',
      '"contradiction": the submission and the reference disagree on at least one fact;',
      '"immaterial_difference": they differ, but the differences do not matter for factuality.',
      `Reply with JSON only: {"reasoning": "<short justification>", "category": ${FactualityCategory.options.map((c) => `"${c}"`).join(' | ')}}.`,
    ].join(' '),
  verdict: () => z.strictObject({ reasoning: z.string(), category: FactualityCategory }),
  sections(o, testCase, output) {
    const reference = o.reference ?? (isMissing(testCase.expected) ? undefined : expectedText(testCase.expected));
    if (!reference) return 'no reference answer (option `reference` or case `expected`)';
    return [
      { title: 'Question', text: inputText(testCase), untrusted: true },
      { title: 'Expert reference answer', text: reference, untrusted: false },
      { title: 'Submitted answer', text: outputText(output), untrusted: true },
    ];
  },
  interpret(o, verdict) {
    const category = verdict.category as FactualityCategory;
    let score = FACTUALITY_SCORES[category];
    for (const [key, value] of Object.entries(o.scores ?? {})) {
      const parsed = CategoryOption.safeParse(key);
      if (parsed.success && parsed.data === category && value !== undefined) score = value;
    }
    return {
      score,
      passed: !o.fail_categories.includes(category),
      reasoning: `${category}: ${verdict.reasoning as string}`,
      extra: { category },
    };
  },
});
