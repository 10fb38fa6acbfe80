import type { z } from 'zod';
import type { Experiment } from '../core/experiment.js';
import type { ExperimentView } from '../core/view.js';
import { type PluginBase, Registry } from '../plugins/registry.js';

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
export function defineReporter<O, I = unknown>(plugin: {
  name: string;
  description: string;
  extension: string;
  options: z.ZodType<O, I>;
  /** A valid options set for `list-plugins` and the conformance tests (needed when an option is required). */
  example?: NoInfer<I> & Readonly<Record<string, unknown>>;
  create(options: O): Reporter;
}): ReporterPlugin<O> {
  reporterRegistry.register(plugin as unknown as ReporterPlugin<never>);
  return plugin;
}
