import { z } from 'zod';
import { itemAt } from '../core/item-at.js';
import { collectPanelRatings, panelAgreement } from '../evaluators/support/judge.js';
import { bootstrapIterations } from '../stats/bootstrap.js';
import { bootstrapStatistic } from '../stats/bootstrap-statistic.js';
import { defineBuiltinMetric } from './support/common.js';

const Options = z.object({
  /** Only panels of this evaluator (e.g. llm_rubric); all judge panels when omitted. */
  evaluator: z.string().optional(),
});

/**
 * Agreement of an LLM-judge panel across the run: Cohen's kappa on pass/fail with two judges, Krippendorff's
 * alpha (nominal) with more; details add alpha on the scores (interval level). The 95% interval is a seeded
 * percentile bootstrap over cases (the statistic recomputed on resampled cases). Needs evaluations with a `panel`.
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
    // Resample cases, keeping each case's verdicts from every judge together.
    const statisticOf = (idx: readonly number[]) => {
      const pick = <T>(rows: T[][]) => rows.map((row) => idx.map((i) => itemAt(row, i)));
      const b = panelAgreement({
        ...ratings,
        passed: pick(ratings.passed),
        scores: pick(ratings.scores),
        cases: idx.length,
      });
      return (a.judges === 2 ? b.kappa : b.alpha_nominal) ?? Number.NaN;
    };
    const boot = bootstrapStatistic(ratings.cases, statisticOf, {
      iterations: bootstrapIterations(ratings.cases * a.judges),
    });
    return {
      value,
      formatted_value: `${value.toFixed(2)} (${a.judges === 2 ? 'κ' : 'α'})`,
      interval: boot ? { lower: boot.lower, upper: boot.upper, level: 0.95, method: 'bootstrap (cases)' } : null,
      sample_size: a.cases,
      details: { statistic, judge_names: ratings.judges, ...a },
    };
  },
});
