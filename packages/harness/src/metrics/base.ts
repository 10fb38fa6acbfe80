import type { z } from 'zod';
import { type MetricDirection, MetricResult, type MetricResultInput } from '../core/experiment.js';
import type { TestCaseResult } from '../core/result.js';
import { type PluginBase, type PluginContext, Registry } from '../plugins/registry.js';

/** Aggregates all case results of a run into one figure. Must handle an empty list. */
export interface Metric {
  readonly name: string;
  readonly direction: MetricDirection;
  calculate(results: readonly TestCaseResult[]): MetricResult;
}

export interface MetricPlugin<Options = unknown> extends PluginBase<Options> {
  readonly direction: MetricDirection;
  create(options: Options, ctx: PluginContext): Metric;
}

export const metricRegistry = new Registry<MetricPlugin<never>>('metric');

/** Register a metric plugin (typed helper so options infer from the schema). */
export function defineMetric<O, I = unknown>(plugin: {
  name: string;
  description: string;
  direction: MetricDirection;
  options: z.ZodType<O, I>;
  /** A valid options set for `list-plugins` and the conformance tests (needed when an option is required). */
  example?: NoInfer<I> & Readonly<Record<string, unknown>>;
  create(options: O, ctx: PluginContext): Metric;
}): MetricPlugin<O> {
  metricRegistry.register(plugin as unknown as MetricPlugin<never>);
  return plugin;
}

/** Build a metric result with defaults applied. */
export function metricResult(input: MetricResultInput): MetricResult {
  return MetricResult.parse(input);
}
