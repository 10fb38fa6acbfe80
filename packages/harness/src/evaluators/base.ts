import { z } from 'zod';
import type { AgentOutput } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { EvaluationResult, type EvaluationResultInput } from '../core/result.js';
import type { EvaluatorConfig, TestCase } from '../core/testcase.js';
import { closest, type PluginBase, type PluginContext, Registry } from '../plugins/registry.js';

/** Per-call context: cancellation, and where judges record their own usage. */
export interface EvaluateContext {
  signal?: AbortSignal;
}

/** Judges one agent output for one case. Must not throw for an errored output: score 0 instead. */
export interface Evaluator {
  readonly name: string;
  evaluate(
    testCase: TestCase,
    output: AgentOutput,
    ctx?: EvaluateContext,
  ): EvaluationResult | Promise<EvaluationResult>;
  /**
   * Optional check run once before any case (e.g. an LLM judge's provider is known and configured), so a
   * misconfiguration stops the run up front instead of erroring every case. Throws with a clear message.
   */
  prepare?(): Promise<void>;
}

/** A registered evaluator: validated options in, a working Evaluator out. */
export interface EvaluatorPlugin<Options = unknown> extends PluginBase<Options> {
  create(options: Options, ctx: PluginContext): Evaluator;
}

export const evaluatorRegistry = new Registry<EvaluatorPlugin<never>>('evaluator');

/** Register an evaluator plugin (typed helper so options infer from the schema). */
export function defineEvaluator<O, I = unknown>(plugin: {
  name: string;
  description: string;
  options: z.ZodType<O, I>;
  /** A valid options set for `list-plugins` and the conformance tests (needed when an option is required). */
  example?: NoInfer<I> & Readonly<Record<string, unknown>>;
  create(options: O, ctx: PluginContext): Evaluator;
}): EvaluatorPlugin<O> {
  evaluatorRegistry.register(plugin as unknown as EvaluatorPlugin<never>);
  return plugin;
}

/** Options every evaluator accepts besides its own (the harness's, not the plugin's). */
export const CommonEvaluatorOptions = z.object({
  /** Negate the verdict (score becomes 1 - score). */
  not: z.boolean().optional(),
  /** Pass when score >= threshold (graded evaluators). */
  threshold: z.number().min(0).max(1).optional(),
});
export type CommonEvaluatorOptions = z.infer<typeof CommonEvaluatorOptions>;
const COMMON_KEYS = ['not', 'threshold'] as const;

/** Top-level keys an options schema declares (through optional/default/pipe wrappers); empty when unknown. */
export function declaredOptionKeys(schema: z.ZodType<unknown>): Set<string> {
  let s: unknown = schema;
  for (let depth = 0; depth < 8 && s && typeof s === 'object'; depth++) {
    const shape = (s as { shape?: unknown }).shape;
    if (shape && typeof shape === 'object') return new Set(Object.keys(shape));
    const def = (s as { _zod?: { def?: { innerType?: unknown; in?: unknown; schema?: unknown } } })._zod?.def;
    s = def?.innerType ?? def?.in ?? def?.schema;
  }
  return new Set();
}

/**
 * Split an evaluator entry's settings into the harness's common options and the plugin's own options.
 * `not` / `threshold` written next to `name` always belong to the harness. Inside `options`, a key the
 * plugin's schema declares belongs to the plugin (the seed's `fuzzy_match` takes its own `threshold`), so
 * the two meanings can never capture each other; an undeclared `options.not` / `options.threshold` is the
 * harness's (the older spelling).
 */
export function splitEvaluatorOptions(
  plugin: PluginBase<unknown>,
  config: Pick<EvaluatorConfig, 'options'> & { not?: unknown; threshold?: unknown },
): { common: Record<string, unknown>; own: Record<string, unknown> } {
  const declared = declaredOptionKeys(plugin.options);
  const own: Record<string, unknown> = { ...(config.options as Record<string, unknown>) };
  const common: Record<string, unknown> = {};
  for (const key of COMMON_KEYS) {
    if (key in own && !declared.has(key)) {
      common[key] = own[key];
      delete own[key];
    }
    if (config[key] !== undefined) common[key] = config[key];
  }
  return { common, own };
}

/** Rounding slack around [0, 1]: a score this close is float error and is clamped; anything further is a bug. */
const SCORE_SLACK = 1e-9;

/** Thrown for a score outside [0, 1] or NaN: the runner records it as an evaluator error on that case. */
export class ScoreRangeError extends Error {
  readonly code = 'AEH_ERR_SCORE_RANGE';
  override name = 'ScoreRangeError';
  constructor(
    readonly evaluator: string,
    readonly score: unknown,
  ) {
    super(`evaluator '${evaluator}' returned score ${String(score)}, outside [0, 1]`);
  }
}

/** The score clamped for float error only; throws ScoreRangeError for NaN or a real out-of-range value. */
export function checkedScore(evaluator: string, score: unknown): number {
  if (typeof score !== 'number' || Number.isNaN(score) || score < -SCORE_SLACK || score > 1 + SCORE_SLACK) {
    throw new ScoreRangeError(evaluator, score);
  }
  return Math.min(1, Math.max(0, score));
}

/**
 * Build a result with defaults applied. Tiny float error is clamped into [0, 1]; a score clearly outside it
 * (or NaN) throws ScoreRangeError, because clamping 2 to 1 would silently turn a bug into a pass.
 */
export function result(input: EvaluationResultInput): EvaluationResult {
  const score = checkedScore(input.evaluator, input.score);
  // Hand-built on the hot path (hundreds of thousands per run); same checks and defaults as the schema.
  const weight = input.weight ?? 1;
  if (
    typeof input.evaluator !== 'string' ||
    input.evaluator === '' ||
    !Number.isFinite(score) ||
    typeof input.passed !== 'boolean' ||
    !(weight >= 0)
  ) {
    return EvaluationResult.parse({ ...input, score });
  }
  return {
    evaluator: input.evaluator,
    score,
    passed: input.passed,
    explanation: input.explanation ?? '',
    weight,
    error: input.error ?? false,
    details: input.details ?? {},
  };
}

/** The standard failing result for an agent output that is an error. */
export function errorResult(name: string, output: AgentOutput): EvaluationResult {
  return result({
    evaluator: name,
    score: 0,
    passed: false,
    explanation: `agent returned an error: ${output.error}`,
  });
}

/** Thrown when an evaluator's options do not validate; carries the field path. */
export class PluginOptionsError extends Error {
  readonly code = 'AEH_ERR_PLUGIN_OPTIONS';
  override name = 'PluginOptionsError';
  constructor(
    readonly plugin: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(`invalid options for '${plugin}': ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
}

/** Validate options against a plugin's schema, throwing PluginOptionsError with field paths. */
export function parseOptions<O>(plugin: PluginBase<O>, options: unknown): O {
  const parsed = plugin.options.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  // An unknown key next to a known one that is a likely typo (`substr` for `substring`) says so.
  const known = Object.keys((plugin.options as { shape?: Record<string, unknown> }).shape ?? {});
  const hint = (i: (typeof parsed.error.issues)[number]): string => {
    if (i.code !== 'unrecognized_keys' || known.length === 0) return '';
    // A typo (edit distance) or a truncation (`substr`) of a known key.
    const guess = (k: string) =>
      closest(k, known) ?? (k.length >= 3 ? known.find((n) => n.startsWith(k.toLowerCase())) : undefined);
    const near = i.keys.map((k) => [k, guess(k)] as const).filter(([, n]) => n !== undefined);
    return near.map(([k, n]) => `; did you mean '${n}' for '${k}'?`).join('');
  };
  throw new PluginOptionsError(
    plugin.name,
    parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: `${i.message}${hint(i)}` })),
  );
}

/**
 * Create an evaluator from a suite entry: splits off common options (not, threshold), validates the rest
 * against the plugin's schema, and wraps the evaluator so negation, thresholds, weight and thrown
 * errors are handled the same way for every plugin.
 */
export function createEvaluator(config: EvaluatorConfig, ctx: PluginContext): Evaluator {
  const plugin = evaluatorRegistry.get(config.name) as EvaluatorPlugin<unknown>;
  const { common: commonRaw, own } = splitEvaluatorOptions(plugin, config);
  const commonParsed = CommonEvaluatorOptions.safeParse(commonRaw);
  if (!commonParsed.success) {
    throw new PluginOptionsError(
      plugin.name,
      commonParsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const common = commonParsed.data;
  const inner = plugin.create(parseOptions(plugin, own), ctx);
  const weight = config.weight;
  const name = plugin.name;
  return {
    name,
    ...(inner.prepare ? { prepare: () => (inner.prepare as () => Promise<void>).call(inner) } : {}),
    async evaluate(testCase, output, evalCtx) {
      let r: EvaluationResult;
      try {
        r = await inner.evaluate(testCase, output, evalCtx);
        // A plugin that builds its result by hand (not through `result()`) is held to the same range.
        const score = checkedScore(name, r?.score);
        if (score !== r.score) r = { ...r, score };
      } catch (err) {
        return result({
          evaluator: name,
          score: 0,
          passed: false,
          error: true,
          weight,
          explanation: `evaluator error: ${errorMessage(err)}`,
        });
      }
      let passed = r.passed;
      if (common.threshold !== undefined) {
        passed = r.score >= common.threshold;
        r = {
          ...r,
          explanation: `${r.explanation} [score ${r.score.toFixed(3)} ${passed ? '>=' : '<'} threshold ${common.threshold}]`,
        };
      }
      if (common.not) {
        // An errored agent output never passes, negated or not.
        const errored = output.error !== null && output.error !== undefined;
        return result({
          ...r,
          weight,
          score: errored ? 0 : 1 - r.score,
          passed: errored ? false : !passed,
          explanation: `NOT (${r.explanation})`,
        });
      }
      // Common case: the plugin built a valid result with the same weight and verdict; reuse it.
      if (
        r.weight === weight &&
        r.passed === passed &&
        r.score >= 0 &&
        r.score <= 1 &&
        typeof r.explanation === 'string' &&
        typeof r.error === 'boolean' &&
        r.details !== undefined
      ) {
        return r;
      }
      return result({ ...r, weight, passed });
    },
  };
}
