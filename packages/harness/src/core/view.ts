import type { Experiment } from './experiment.js';
import type { TestCaseResult } from './result.js';

/** Everything about a run except its results. */
export type ExperimentHeader = Omit<Experiment, 'results'>;

/**
 * A run as reporters read it: the header plus results as a stream, so a 100,000-case run is never
 * held in memory by a reporter. `results()` may be called more than once.
 */
export interface ExperimentView {
  readonly header: ExperimentHeader;
  results(): AsyncIterable<TestCaseResult>;
}

/** Wrap an in-memory Experiment as a view. */
export function viewOf(experiment: Experiment): ExperimentView {
  const { results, ...header } = experiment;
  return {
    header,
    async *results() {
      yield* results;
    },
  };
}

/** True when `x` is already a view (reporters accept both an Experiment and a view). */
export function isView(x: Experiment | ExperimentView): x is ExperimentView {
  return 'header' in x && typeof (x as ExperimentView).results === 'function';
}
