import type { z } from 'zod';
import type { Experiment } from '../core/experiment.js';
import type { TestCaseResult } from '../core/result.js';
import { type PluginBase, Registry } from '../plugins/registry.js';

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

export function isView(x: Experiment | ExperimentView): x is ExperimentView {
  return 'header' in x && typeof (x as ExperimentView).results === 'function';
}

/** Renders a run. Returns the report text; when `destination` is given, also writes it (creating folders). */
export interface Reporter {
  readonly name: string;
  report(run: Experiment | ExperimentView, destination?: string): Promise<string>;
}

export interface ReporterPlugin<Options = unknown> extends PluginBase<Options> {
  /** File extension for `--out` folders, e.g. "json", "html", "xml". */
  readonly extension: string;
  create(options: Options): Reporter;
}

export const reporterRegistry = new Registry<ReporterPlugin<never>>('reporter');

/** Register a reporter plugin (typed helper so options infer from the schema). */
export function defineReporter<O>(plugin: {
  name: string;
  description: string;
  extension: string;
  options: z.ZodType<O>;
  create(options: O): Reporter;
}): ReporterPlugin<O> {
  reporterRegistry.register(plugin as unknown as ReporterPlugin<never>);
  return plugin;
}
