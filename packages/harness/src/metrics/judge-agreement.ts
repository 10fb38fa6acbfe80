import { z } from 'zod';
import { collectPanelRatings, panelAgreement } from '../evaluators/support/judge.js';
import { defineBuiltinMetric } from './support/common.js';

const Options = z.object({
  /** Only panels of this evaluator (e.g. llm_rubric); all judge panels when omitted. */
  evaluator: z.string().optional(),
});

/**
 * Agreement of an LLM-judge panel across the run: Cohen's kappa on pass/fail with two judges, Krippendorff's
 * alpha (nominal) with more; details add alpha on the scores (interval). Needs evaluations with a `panel`.
 */
export const judgeAgreement = defineBuiltinMetric({
  name: 'judge_agreement',
  description: "Judge panel agreement across cases: Cohen's kappa (2 judges) or Krippendorff's alpha (3+)",
  direction: 'higher_is_better',
  options: Options,
  compute(results, opts) {
    const evaluations = results.flatMap((r) =>
      r.evaluations.filter((e) => !opts.evaluator || e.evaluator === opts.evaluator),
    );
    const ratings = collectPanelRatings(evaluations);
    const a = panelAgreement(ratings);
    const statistic = a.judges === 2 ? 'cohen_kappa' : 'krippendorff_alpha_nominal';
    const value = a.judges === 2 ? a.kappa : a.alpha_nominal;
    if (a.judges < 2 || value === null) {
      return {
        value: 0,
        formatted_value: 'n/a',
        sample_size: a.cases,
        details: {
          ...a,
          note: a.judges < 2 ? 'no judge panel in these results' : 'not enough paired verdicts to compute agreement',
        },
      };
    }
    return {
      value,
      formatted_value: `${value.toFixed(2)} (${a.judges === 2 ? 'κ' : 'α'})`,
      sample_size: a.cases,
      details: { statistic, judge_names: ratings.judges, ...a },
    };
  },
});
