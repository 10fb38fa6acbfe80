import { setMaxListeners } from 'node:events';
import type { Agent, RunContext } from '../adapters/base.js';
import { MAX_TIMER_MS } from '../adapters/timeouts.js';
import { AgentOutput } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import type { ResultLocation, RunOutcome, RunProgress } from '../core/execution.js';
import type { MetricResult } from '../core/experiment.js';
import { sortedKeysJson } from '../core/hash.js';
import { type EvaluationResult, resultKey, type TestCaseResult, weightedScore } from '../core/result.js';
import { sleep } from '../core/sleep.js';
import type { MetricSpec } from '../core/suite.js';
import type { EvaluatorConfig, TestCase } from '../core/testcase.js';
import { firstZodIssue } from '../core/zod-issues.js';
import { createEvaluator, type Evaluator, parseOptions } from '../evaluators/base.js';
import { type Metric, metricRegistry } from '../metrics/base.js';
import type { PluginContext } from '../plugins/registry.js';
import type { CaseTrace, RunTrace } from '../telemetry/types.js';
import { type JournalWriter, sortLocations } from './journal.js';
import { backoffDelay, DEFAULT_RETRY, RetryBudget, type RetryPolicy } from './retry.js';
import { runPool } from './scheduler.js';
import { slimResult } from './slim.js';

export interface RunnerOptions {
  /** Evaluators for cases that name none of their own (a case's own list replaces these). */
  evaluators?: EvaluatorConfig[];
  metrics?: MetricSpec[];
  /** Cases in flight at once (default 8). */
  concurrency?: number;
  /** Seconds per attempt; a case's own `timeout` wins. null or 0 disables (default 300). */
  timeout?: number | null;
  /** Runs per case unless the case sets `repeat` (default 1). */
  repeat?: number;
  retry?: Partial<RetryPolicy>;
  context?: PluginContext;
  /** Suite-level template variables; a case's `vars` are merged over them. */
  vars?: Record<string, unknown>;
  /** What to keep in memory per result for metrics (default: `slimResult`). */
  slim?: (result: TestCaseResult) => TestCaseResult;
}

export interface RunHooks {
  signal?: AbortSignal;
  /** Keys (`test_id#repeat`) already done: skipped (resume). */
  skip?: ReadonlySet<string>;
  /** Only cases for which this returns true run. */
  filter?: (testCase: TestCase) => boolean;
  journal?: JournalWriter;
  /** Planned runs, for progress only. */
  total?: number;
  onResult?: (result: TestCaseResult, progress: RunProgress) => void;
  /** The run's span when tracing is on: each case x repeat becomes a child span. */
  trace?: RunTrace;
}

class CaseAborted extends Error {}

/**
 * One 'abort' listener per run signal, fanning out to the cases in flight: each case adds and removes a callback in
 * a Set (O(1)), instead of its own listener on the signal, which Node's EventTarget adds by walking every listener
 * already there (O(cases in flight) per case, ~11 ms per 1,000 cases at concurrency 64).
 */
const abortFanOut = new WeakMap<AbortSignal, Set<() => void>>();

function onRunAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = abortFanOut.get(signal);
  if (!callbacks) {
    const set = new Set<() => void>();
    callbacks = set;
    abortFanOut.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const fn of [...set]) fn();
        set.clear();
      },
      { once: true },
    );
  }
  const registered = callbacks;
  registered.add(callback);
  return () => registered.delete(callback);
}

const DEFAULT_TIMEOUT_SECONDS = 300;

/** Judges a case that has an expected value when neither it nor the suite names an evaluator (the seed's rule). */
const FALLBACK_EVALUATOR: EvaluatorConfig = { name: 'exact_match', options: {}, weight: 1 };

/** Why a case with no evaluator and no expected value failed (shown as the case's reason in every report). */
export const NO_EVALUATOR_NOTE =
  'nothing judged this case: no evaluators (case, defaults or suite) and no expected value for the exact_match fallback';

/**
 * Runs cases against one agent: bounded concurrency, per-attempt timeout through an AbortSignal (a late
 * reply is discarded), one retry layer for transient outputs, repeats, evaluators, and metrics. A throwing
 * adapter, evaluator or metric becomes a recorded error, never a crash. Evaluators and metrics are
 * resolved in the constructor, so an unknown name or bad option fails before any case runs.
 */
export class AgentRunner {
  readonly #agent: Agent;
  readonly #ctx: PluginContext;
  readonly #defaults: Evaluator[];
  readonly #metrics: Metric[];
  readonly #caseEvaluators = new Map<string, Evaluator>();
  readonly concurrency: number;
  readonly timeout: number | null;
  readonly repeat: number;
  readonly retry: RetryPolicy;
  readonly #vars: Record<string, unknown>;
  readonly #slim: (result: TestCaseResult) => TestCaseResult;
  #budget: RetryBudget;

  constructor(agent: Agent, options: RunnerOptions = {}) {
    this.#agent = agent;
    this.#ctx = options.context ?? { baseDir: process.cwd(), env: process.env };
    this.#defaults = (options.evaluators ?? []).map((c) => createEvaluator(c, this.#ctx));
    this.#metrics = (options.metrics ?? []).map((m) => createMetric(m, this.#ctx));
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
    this.timeout = options.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : options.timeout || null;
    this.repeat = Math.max(1, Math.floor(options.repeat ?? 1));
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#budget = new RetryBudget(this.retry.budget);
    this.#vars = options.vars ?? {};
    this.#slim = options.slim ?? slimResult;
  }

  /**
   * Let suite-level evaluators check their setup (e.g. an LLM judge's provider is known and configured)
   * before any case runs, so a misconfiguration fails once instead of on every case.
   */
  async prepare(): Promise<void> {
    for (const ev of this.#defaults) await ev.prepare?.();
  }

  /** Names of the metrics this runner computes. */
  get metricNames(): string[] {
    return this.#metrics.map((m) => m.name);
  }

  /**
   * Run one case x repeat. Returns null when `signal` (the run's cancellation) aborts before it finishes:
   * such a case is not recorded, so a resumed run does it again.
   */
  async evaluateCase(
    testCase: TestCase,
    repeat = 0,
    signal?: AbortSignal,
    trace?: RunTrace,
  ): Promise<TestCaseResult | null> {
    const started = new Date();
    const caseTrace = trace?.startCase(testCase, repeat);
    const timeoutS = testCase.timeout ?? this.timeout;
    const vars = { ...this.#vars, ...testCase.vars };
    let output: AgentOutput;
    let duration = 0;
    let attempt = 0;
    for (;;) {
      attempt++;
      const t0 = performance.now();
      const call = caseTrace?.agentCall(attempt);
      const outcome = await this.#callAgent(testCase, repeat, attempt, vars, timeoutS, signal, call?.traceparent);
      duration = (performance.now() - t0) / 1000;
      if (outcome === 'cancelled') return null;
      output = outcome;
      if (output.latency === null) output.latency = duration;
      call?.end(output);
      const retryable = output.transient === true && output.error !== null && attempt < this.retry.maxAttempts;
      if (!retryable || !this.#budget.take()) break;
      await sleep(backoffDelay(this.retry, attempt, output.retry_after), signal);
      if (signal?.aborted) return null;
    }

    const evaluations = await this.#evaluate(testCase, output, signal, caseTrace);
    if (signal?.aborted) return null;
    const agentFailed = output.error !== null;
    const evaluatorFailed = evaluations.some((e) => e.error);
    const allPassed = evaluations.length > 0 && evaluations.every((e) => e.passed);
    const status = agentFailed || evaluatorFailed ? 'error' : allPassed ? 'passed' : 'failed';
    const result: TestCaseResult = {
      test_id: testCase.id,
      test_name: testCase.name,
      repeat,
      status,
      tags: testCase.tags,
      input: testCase.input,
      expected: testCase.expected,
      output,
      evaluations,
      score: agentFailed ? 0 : weightedScore(evaluations, allPassed),
      duration,
      attempts: attempt,
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      metadata: evaluations.length === 0 ? { note: NO_EVALUATOR_NOTE } : {},
    };
    if (testCase.expected === undefined) delete result.expected;
    if (caseTrace) {
      // Links the stored result to its span in the tracing back-end.
      result.metadata.otel = caseTrace.ids;
      caseTrace.end(result);
    }
    return result;
  }

  async #callAgent(
    testCase: TestCase,
    repeat: number,
    attempt: number,
    vars: Record<string, unknown>,
    timeoutS: number | null,
    runSignal?: AbortSignal,
    traceparent?: string,
  ): Promise<AgentOutput | 'cancelled'> {
    if (runSignal?.aborted) return 'cancelled';
    const ctrl = new AbortController();
    let settle: (value: AgentOutput | 'cancelled') => void = () => {};
    const settled = new Promise<AgentOutput | 'cancelled'>((resolve) => {
      settle = resolve;
    });
    let done = false;
    const finish = (value: AgentOutput | 'cancelled') => {
      if (done) return;
      done = true;
      settle(value);
    };
    // Only this method aborts `ctrl` (run cancelled, or timeout), so each path settles the call itself, without a
    // listener on the controller; a reply arriving after the abort is ignored, `finish` has already settled.
    const stopListening = runSignal
      ? onRunAbort(runSignal, () => {
          ctrl.abort(new CaseAborted('cancelled'));
          finish('cancelled');
        })
      : undefined;
    // setTimeout holds at most 2^31-1 ms (~24.8 days) and fires a longer delay after 1 ms, which timed out every case
    // of `--timeout 1e12`; a timeout too long for a timer can never fire in practice, so it sets none.
    const timer =
      timeoutS && timeoutS > 0 && Math.ceil(timeoutS * 1000) <= MAX_TIMER_MS
        ? setTimeout(
            () => {
              ctrl.abort(new CaseAborted('timeout'));
              finish(
                AgentOutput.parse({
                  error: `timed out after ${timeoutS}s`,
                  latency: timeoutS,
                  metadata: { timed_out: true },
                }),
              );
            },
            Math.ceil(timeoutS * 1000),
          )
        : undefined;
    const ctx: RunContext = {
      signal: ctrl.signal,
      testCase,
      repeat,
      attempt,
      vars,
      ...(traceparent ? { traceparent } : {}),
    };
    try {
      let pending: Promise<AgentOutput>;
      try {
        pending = Promise.resolve(this.#agent.run(testCase.input, ctx));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (raw) => finish(normaliseOutput(raw)),
        (err) => finish(agentThrew(err)),
      );
      return await settled;
    } finally {
      if (timer) clearTimeout(timer);
      stopListening?.();
    }
  }

  async #evaluate(
    testCase: TestCase,
    output: AgentOutput,
    signal?: AbortSignal,
    caseTrace?: CaseTrace,
  ): Promise<EvaluationResult[]> {
    let evaluators: (Evaluator | EvaluationResult)[] =
      testCase.evaluators.length > 0 ? testCase.evaluators.map((c) => this.#caseEvaluator(c)) : this.#defaults;
    // The seed's rule for a suite with no evaluators at all: a case with an expected value is judged by
    // exact_match (documented in suite-format.md); a case with neither fails with NO_EVALUATOR_NOTE.
    if (evaluators.length === 0 && testCase.expected !== undefined && testCase.expected !== null) {
      evaluators = [this.#caseEvaluator(FALLBACK_EVALUATOR)];
    }
    const results: EvaluationResult[] = [];
    for (const ev of evaluators) {
      if (!('evaluate' in ev)) {
        results.push(ev);
        continue;
      }
      const span = caseTrace?.evaluator(ev.name);
      try {
        results.push(await ev.evaluate(testCase, output, { signal }));
      } catch (err) {
        results.push(evaluatorError(ev.name, err));
      }
      span?.end(results[results.length - 1] as EvaluationResult);
    }
    return results;
  }

  /** Build (or reuse) an evaluator for a case's own config; a config that fails becomes an error result. */
  #caseEvaluator(config: EvaluatorConfig): Evaluator | EvaluationResult {
    const key = sortedKeysJson(config);
    const cached = this.#caseEvaluators.get(key);
    if (cached) return cached;
    try {
      const ev = createEvaluator(config, this.#ctx);
      if (this.#caseEvaluators.size >= 256) this.#caseEvaluators.clear();
      this.#caseEvaluators.set(key, ev);
      return ev;
    } catch (err) {
      return evaluatorError(config.name, err);
    }
  }

  /** Compute every metric; a metric that throws becomes an errored MetricResult. */
  computeMetrics(results: readonly TestCaseResult[]): Record<string, MetricResult> {
    const out: Record<string, MetricResult> = {};
    for (const metric of this.#metrics) {
      try {
        out[metric.name] = metric.calculate(results);
      } catch (err) {
        out[metric.name] = {
          name: metric.name,
          value: 0,
          formatted_value: 'ERR',
          direction: 'neutral',
          description: 'metric calculation failed',
          interval: null,
          error: errorMessage(err),
          details: {},
        };
      }
    }
    return out;
  }

  /**
   * Run every case x repeat from `cases` (pulled lazily). Results go to the journal as each finishes;
   * slimmed copies are kept for metrics and returned in case-then-repeat order whatever the completion order.
   */
  async run(cases: Iterable<TestCase> | AsyncIterable<TestCase>, hooks: RunHooks = {}): Promise<RunOutcome> {
    const { signal, skip, filter, journal, onResult, trace } = hooks;
    // Every in-flight case listens on the run's signal; lift Node's default cap of 10 listeners.
    if (signal) setMaxListeners(0, signal);
    const progress: RunProgress = { done: 0, total: hooks.total ?? 0, passed: 0, failed: 0, errors: 0 };
    const kept: { index: number; result: TestCaseResult }[] = [];
    const locations: ResultLocation[] = [];
    const repeatDefault = this.repeat;
    const budgetBefore = this.#budget.used;

    async function* work(): AsyncGenerator<{ testCase: TestCase; index: number; repeat: number }> {
      let index = 0;
      for await (const testCase of cases) {
        const i = index++;
        if (filter && !filter(testCase)) continue;
        const repeats = testCase.repeat ?? repeatDefault;
        for (let r = 0; r < repeats; r++) {
          if (skip?.has(resultKey({ test_id: testCase.id, repeat: r }))) continue;
          yield { testCase, index: i, repeat: r };
        }
      }
    }

    await runPool(
      work(),
      this.concurrency,
      async ({ testCase, index, repeat }) => {
        const result = await this.evaluateCase(testCase, repeat, signal, trace);
        if (!result) return;
        if (journal) locations.push(journal.result(result, index));
        kept.push({ index, result: this.#slim(result) });
        progress.done++;
        if (result.status === 'passed') progress.passed++;
        else if (result.status === 'error') progress.errors++;
        else if (result.status === 'failed') progress.failed++;
        if (progress.done > progress.total) progress.total = progress.done;
        onResult?.(result, { ...progress });
      },
      signal,
    );

    kept.sort((a, b) => a.index - b.index || a.result.repeat - b.result.repeat);
    return {
      state: signal?.aborted ? 'cancelled' : 'completed',
      results: kept.map((k) => k.result),
      indexes: kept.map((k) => k.index),
      locations: sortLocations(locations),
      progress,
      retriesUsed: this.#budget.used - budgetBefore,
    };
  }
}

/** Resolve a metric spec through the registry, validating its options. */
export function createMetric(spec: MetricSpec, ctx: PluginContext): Metric {
  const { name, options } = typeof spec === 'string' ? { name: spec, options: {} } : spec;
  const plugin = metricRegistry.get(name);
  const metric = plugin.create(parseOptions(plugin, options ?? {}) as never, ctx);
  // The declared direction is the truth: a result built with `metricResult({...})` and no direction would
  // otherwise default to higher_is_better, and compare would call a latency improvement a regression.
  const direction = metric.direction ?? plugin.direction;
  return {
    name: metric.name,
    direction,
    calculate(results) {
      const r = metric.calculate(results);
      return r.direction === direction ? r : { ...r, direction };
    },
  };
}

/** Accept what adapters return: a full AgentOutput or a partial one; anything invalid is an error output. */
function normaliseOutput(raw: unknown): AgentOutput {
  if (isCompleteOutput(raw)) return raw;
  const parsed = AgentOutput.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  return AgentOutput.parse({ error: `adapter returned an invalid output (${firstZodIssue(parsed.error)})` });
}

/**
 * True for an object that already has every AgentOutput field with the right type at the top level (what
 * `agentOutput()` builds): such outputs skip a second full schema parse on the hot path.
 */
function isCompleteOutput(raw: unknown): raw is AgentOutput {
  if (!raw || typeof raw !== 'object') return false;
  const o = raw as Record<string, unknown>;
  const out = o.output;
  return (
    (typeof out === 'string' || (typeof out === 'object' && out !== null && !Array.isArray(out))) &&
    (o.error === null || typeof o.error === 'string') &&
    (o.latency === null || (typeof o.latency === 'number' && o.latency >= 0)) &&
    (o.time_to_first_token === null || typeof o.time_to_first_token === 'number') &&
    Array.isArray(o.tool_calls) &&
    (o.tool_calls as { tool_name?: unknown }[]).every((c) => c && typeof c.tool_name === 'string') &&
    (o.trace === null || typeof o.trace === 'object') &&
    (o.usage === null || typeof o.usage === 'object') &&
    (o.cost === null || (typeof o.cost === 'number' && o.cost >= 0)) &&
    typeof o.cost_is_estimated === 'boolean' &&
    typeof o.metadata === 'object' &&
    o.metadata !== null
  );
}

function agentThrew(err: unknown): AgentOutput {
  return AgentOutput.parse({ error: `agent threw: ${errorMessage(err)}`, metadata: { exception: true } });
}

function evaluatorError(name: string, err: unknown): EvaluationResult {
  return {
    evaluator: name,
    score: 0,
    passed: false,
    explanation: `evaluator error: ${errorMessage(err)}`,
    weight: 1,
    error: true,
    details: {},
  };
}
