import type { MetricDirection, MetricResultInput, TestCaseResult } from '@aeh/harness';
import { defineMetric, metricResult } from '@aeh/harness/plugins';
import { z } from 'zod';
import { CorpusEntry } from '../../contracts/campaign.js';
import { assess, type ScoredRun } from '../../scoring/engine.js';
import type { Assessment } from '../../scoring/result.js';
import { recordOf } from '../record.js';

/** Options every soclab metric takes: the applicable corpus (unrun scenarios count as not resisted). */
export const SoclabMetricOptions = z.strictObject({
  corpus: z.array(CorpusEntry).optional(),
});
export type SoclabMetricOptions = z.infer<typeof SoclabMetricOptions>;

/** The scoring facts of a result, from the full record or the slim copy the runner keeps in memory. */
export function scoredRunOf(result: TestCaseResult): ScoredRun | null {
  const meta = result.output.metadata as Record<string, unknown> | undefined;
  const slim = meta?.soclab_scored as ScoredRun | undefined;
  if (slim?.outcome) return slim;
  const record = recordOf(meta);
  return record
    ? { outcome: record.outcome, repeat: record.repeat, approvals_requested: record.approvals_requested }
    : null;
}

// One assessment per results list: every soclab metric of a run reads the same one.
const cache = new WeakMap<readonly TestCaseResult[], WeakMap<object, Assessment>>();
const NO_CORPUS = {};

/** Assess the campaign behind a results list (the corpus defaults to the scenarios that ran). */
export function assessmentOf(results: readonly TestCaseResult[], corpus?: readonly CorpusEntry[]): Assessment {
  const key = corpus ?? NO_CORPUS;
  let byCorpus = cache.get(results);
  if (!byCorpus) {
    byCorpus = new WeakMap();
    cache.set(results, byCorpus);
  }
  const hit = byCorpus.get(key);
  if (hit) return hit;
  const runs = results.flatMap((r) => {
    const s = scoredRunOf(r);
    return s ? [s] : [];
  });
  // Results without a soclab outcome (the run failed in the adapter) count against promotion, as in the scorecard.
  const unscored = results.flatMap((r) =>
    scoredRunOf(r)
      ? []
      : [{ scenario_id: r.test_id, repeat: r.repeat, error: r.output.error ?? 'no soclab run record' }],
  );
  const entries =
    corpus ??
    [...new Map(runs.map((r) => [r.outcome.scenario_id, r.outcome])).values()].map((o) => ({
      scenario_id: o.scenario_id,
      family: o.family,
      difficulty: o.difficulty,
      benign: o.attack_class === 'none',
    }));
  const assessment = assess({ runs, corpus: entries, unscored });
  byCorpus.set(key, assessment);
  return assessment;
}

/** Define a soclab metric computed from the campaign's assessment. */
export function defineSoclabMetric(spec: {
  name: string;
  description: string;
  direction: MetricDirection;
  compute: (a: Assessment) => Omit<MetricResultInput, 'name' | 'direction' | 'description'>;
}) {
  return defineMetric({
    name: spec.name,
    description: spec.description,
    direction: spec.direction,
    options: SoclabMetricOptions,
    create: (options) => ({
      name: spec.name,
      direction: spec.direction,
      calculate: (results) =>
        metricResult({
          name: spec.name,
          direction: spec.direction,
          description: spec.description,
          ...spec.compute(assessmentOf(results, options.corpus)),
        }),
    }),
  });
}

export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A proportion as metric fields: value, formatted, Wilson interval, sample size. */
export function rate(p: Assessment['attack_success']) {
  return {
    value: p.value,
    formatted_value: `${pct(p.value)} (${p.numerator}/${p.denominator})`,
    // A share: compared in percentage points, never as a percent of itself.
    display: 'rate' as const,
    interval: { lower: p.ci95[0], upper: p.ci95[1], level: 0.95, method: 'wilson' },
    sample_size: p.denominator,
  };
}
