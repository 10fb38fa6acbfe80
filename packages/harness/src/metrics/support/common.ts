import { z } from 'zod';
import { isError } from '../../core/agent.js';
import type { MetricDirection, MetricResult, MetricResultInput } from '../../core/experiment.js';
import type { TestCaseResult } from '../../core/result.js';
import type { PluginContext } from '../../plugins/registry.js';
import { bootstrapMean } from '../../stats/bootstrap.js';
import { wilson } from '../../stats/wilson.js';
import { defineMetric, type MetricPlugin, metricResult } from '../base.js';

/** Whose spend a cost or token metric counts: agent + judges (default), the agent only, or the judges only. */
export const SpendInclude = z.enum(['all', 'agent', 'judge']).default('all');
export type SpendInclude = z.infer<typeof SpendInclude>;

/** The part of a spend that `include` names. */
export function includedSpend(include: SpendInclude, agent: number, judge: number): number {
  return include === 'agent' ? agent : include === 'judge' ? judge : agent + judge;
}

/** Options every built-in metric accepts. */
export const CommonMetricOptions = z.strictObject({
  /** Also compute the metric per tag (details.by_tag). */
  by: z.enum(['tag']).optional(),
});
export type CommonMetricOptions = z.infer<typeof CommonMetricOptions>;

/** Results that count: skipped cases are not part of any figure. */
export function counted(results: readonly TestCaseResult[]): TestCaseResult[] {
  return results.filter((r) => r.status !== 'skipped');
}

/** True when the agent run itself failed (not an evaluation failure). */
export function agentFailed(r: TestCaseResult): boolean {
  return isError(r.output);
}

/** An LLM judge gave no usable verdict on this run (the agent answered): its score is unknown, not 0. */
export function judgeFailed(r: TestCaseResult): boolean {
  return !isError(r.output) && r.evaluations.some((e) => e.error && e.details?.judge !== undefined);
}

/** Seconds the agent took: its reported latency, else the runner's wall clock. */
export function latencyOf(r: TestCaseResult): number {
  return r.output.latency ?? r.duration;
}

/** True when any case appears more than once (repeats): bootstrap then resamples whole cases. */
export function hasRepeats(results: readonly TestCaseResult[]): boolean {
  const seen = new Set<string>();
  for (const r of results) {
    if (seen.has(r.test_id)) return true;
    seen.add(r.test_id);
  }
  return false;
}

export function percent(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

export function seconds(v: number): string {
  if (v !== 0 && Math.abs(v) < 0.01) return `${(v * 1000).toFixed(1)}ms`;
  return `${v.toFixed(2)}s`;
}

export function usd(v: number): string {
  return `$${v.toFixed(4)}`;
}

/** Interval for a proportion: Wilson 95%. */
export function rateInterval(successes: number, n: number): MetricResultInput['interval'] {
  if (n === 0) return null;
  const w = wilson(successes, n);
  return { lower: w.lower, upper: w.upper, level: 0.95, method: 'wilson' };
}

/** Interval for a mean: percentile bootstrap 95%, clustered by case when cases repeat. */
export function meanInterval(values: readonly number[], ids?: readonly string[]): MetricResultInput['interval'] {
  const b = bootstrapMean(values, { clusters: ids });
  if (!b) return null;
  return {
    lower: b.lower,
    upper: b.upper,
    level: b.level,
    method: `percentile bootstrap (B=${b.iterations}, seed=${b.seed}${ids ? `, clustered by case: ${b.clusters}` : ''})`,
  };
}

/**
 * Interval for a mean of scores in [0, 1] (accuracy, pass@k): the percentile bootstrap, widened where needed to the
 * Wilson interval of the same mean over the same number of independent units (cases when they repeat). A score in
 * [0, 1] with mean p varies at most as much as a pass/fail record (variance <= p(1-p)), so the Wilson interval is a
 * valid floor on the width; the bootstrap alone collapses to a point on a small or uniform sample (five perfect cases
 * gave [1, 1]), and a gate `on: lower_bound` then passed a small lucky run.
 */
export function scoreInterval(values: readonly number[], ids?: readonly string[]): MetricResultInput['interval'] {
  const b = meanInterval(values, ids);
  if (!b) return null;
  const units = ids ? new Set(ids).size : values.length;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  const w = wilson(Math.min(units, Math.max(0, mean * units)), units);
  return {
    lower: Math.min(b.lower, w.lower),
    upper: Math.max(b.upper, w.upper),
    level: b.level,
    method: `${b.method}, at least the Wilson interval of the mean over ${units} unit(s)`,
  };
}

/** Bootstrap over results, clustering by test id only when some case has repeats. */
export function meanIntervalFor(
  results: readonly TestCaseResult[],
  values: readonly number[],
): MetricResultInput['interval'] {
  return meanInterval(values, hasRepeats(results) ? results.map((r) => r.test_id) : undefined);
}

/** `scoreInterval` over results, clustering by test id only when some case has repeats. */
export function scoreIntervalFor(
  results: readonly TestCaseResult[],
  values: readonly number[],
): MetricResultInput['interval'] {
  return scoreInterval(values, hasRepeats(results) ? results.map((r) => r.test_id) : undefined);
}

export function sum(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Judge bookkeeping an LLM-judge evaluator leaves in details.judge (totals over a panel). */
export interface JudgeTotals {
  cost: number;
  input_tokens: number;
  output_tokens: number;
  calls: number;
  /** Some judge call had no known price: `cost` undercounts. */
  unpriced: boolean;
  /** Judge evaluations that ended in an error (no usable verdict). */
  errors: number;
}

export function judgeTotals(r: TestCaseResult): JudgeTotals {
  const t: JudgeTotals = { cost: 0, input_tokens: 0, output_tokens: 0, calls: 0, unpriced: false, errors: 0 };
  for (const e of r.evaluations) {
    const j = e.details?.judge as
      | {
          cost?: unknown;
          usage?: { input_tokens?: unknown; output_tokens?: unknown };
          calls?: unknown;
          cost_unpriced?: unknown;
          cost_known?: unknown;
        }
      | undefined;
    if (!j || typeof j !== 'object') continue;
    if (e.error) t.errors++;
    if (j.cost_unpriced === true || j.cost_known === false) t.unpriced = true;
    if (typeof j.cost === 'number') t.cost += j.cost;
    if (j.usage && typeof j.usage === 'object') {
      if (typeof j.usage.input_tokens === 'number') t.input_tokens += j.usage.input_tokens;
      if (typeof j.usage.output_tokens === 'number') t.output_tokens += j.usage.output_tokens;
    }
    t.calls += typeof j.calls === 'number' ? j.calls : 1;
  }
  return t;
}

type Compute<O> = (results: TestCaseResult[], opts: O, name: string) => Omit<MetricResultInput, 'name' | 'direction'>;

/**
 * Register a built-in metric: skipped results are dropped, `by: tag` adds a per-tag breakdown computed by
 * the same function, and the result carries the name the suite used (so aliases gate correctly).
 */
export function defineBuiltinMetric<S extends z.ZodObject>(spec: {
  name: string;
  aliases?: string[];
  description: string;
  direction: MetricDirection;
  options?: S;
  compute: Compute<z.infer<S> & CommonMetricOptions>;
}): MetricPlugin<z.infer<S> & CommonMetricOptions> {
  const schema = (spec.options
    ? CommonMetricOptions.extend(spec.options.shape)
    : CommonMetricOptions) as unknown as z.ZodType<z.infer<S> & CommonMetricOptions>;
  const make = (name: string, description: string) =>
    defineMetric({
      name,
      description,
      direction: spec.direction,
      options: schema,
      create(opts, _ctx: PluginContext) {
        return {
          name,
          direction: spec.direction,
          calculate(all): MetricResult {
            const results = counted(all);
            const main = spec.compute(results, opts, name);
            const details: Record<string, unknown> = { ...(main.details ?? {}) };
            if (opts.by === 'tag') {
              const tags = [...new Set(results.flatMap((r) => r.tags))].sort();
              const byTag: Record<string, unknown> = {};
              for (const tag of tags) {
                const sub = spec.compute(
                  results.filter((r) => r.tags.includes(tag)),
                  opts,
                  name,
                );
                byTag[tag] = {
                  value: sub.value,
                  formatted_value: sub.formatted_value,
                  interval: sub.interval ?? null,
                  sample_size: sub.sample_size,
                };
              }
              details.by_tag = byTag;
            }
            return metricResult({
              description: spec.description,
              sample_size: results.length,
              ...main,
              details,
              name,
              direction: spec.direction,
            });
          },
        };
      },
    });
  const plugin = make(spec.name, spec.description);
  for (const alias of spec.aliases ?? []) make(alias, `Alias of ${spec.name}: ${spec.description}`);
  return plugin;
}
