import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Agent, adapterRegistry, type RunContext } from '../adapters/base.js';
import { AgentOutput } from '../core/agent.js';
import type { ResultLocation, RunExecutor, RunOutcome, RunProgress } from '../core/execution.js';
import type {
  AgentDescriptor,
  ExperimentState,
  MetricDisplay,
  MetricResult,
  ThresholdOutcome,
} from '../core/experiment.js';
import { canonicalJson } from '../core/hash.js';
import type { Redactor } from '../core/redactor.js';
import { type EvaluationResult, resultKey, type TestCaseResult, weightedScore } from '../core/result.js';
import { sleep } from '../core/sleep.js';
import type { MetricSpec, SuiteLike } from '../core/suite.js';
import type { EvaluatorConfig, TestCase } from '../core/testcase.js';
import type { ExperimentHeader, ExperimentView } from '../core/view.js';
import { createEvaluator, type Evaluator, parseOptions } from '../evaluators/base.js';
import { type Metric, metricRegistry } from '../metrics/base.js';
import type { PluginContext } from '../plugins/registry.js';
import { looksSecret, REDACTED, SecretScrubber } from '../secrets/scrubber.js';
import { acquireRunLock, type RunLock } from '../store/run-lock.js';
import type { CaseTrace, RunTrace, RunTracer } from '../telemetry/types.js';
import { captureEnvironment } from './environment.js';
import { indexJournal, JOURNAL_FILE, type JournalIndex, JournalWriter, sortLocations } from './journal.js';
import { backoffDelay, DEFAULT_RETRY, RetryBudget, type RetryPolicy } from './retry.js';
import { createRunFolder, EXPERIMENT_FILE, viewOfJournal, writeExperimentFile } from './run-folder.js';
import { runPool } from './scheduler.js';
import { slimResult } from './slim.js';
import { checkThresholds } from './thresholds.js';

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

/** The run could not start (agent creation failed, nothing selected): a configuration problem; nothing ran. */
export class RunSetupError extends Error {
  override name = 'RunSetupError';
}

const DEFAULT_TIMEOUT_SECONDS = 300;

/** Judges a case that has an expected value when neither it nor the suite names an evaluator (the seed's rule). */
const FALLBACK_EVALUATOR: EvaluatorConfig = { name: 'exact_match', options: {}, weight: 1 };

/** Why a case with no evaluator and no expected value failed (shown as the case's reason in every report). */
export const NO_EVALUATOR_NOTE =
  'nothing judged this case: no evaluators (case, defaults or suite) and no expected value for the exact_match fallback';

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

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
    const onRunAbort = () => ctrl.abort(new CaseAborted('cancelled'));
    runSignal?.addEventListener('abort', onRunAbort, { once: true });
    const timer =
      timeoutS && timeoutS > 0
        ? setTimeout(() => ctrl.abort(new CaseAborted('timeout')), Math.ceil(timeoutS * 1000))
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
      return await new Promise<AgentOutput | 'cancelled'>((settle) => {
        let settled = false;
        const finish = (value: AgentOutput | 'cancelled') => {
          if (settled) return;
          settled = true;
          settle(value);
        };
        // A reply arriving after the abort is ignored: `finish` has already settled.
        ctrl.signal.addEventListener(
          'abort',
          () => {
            const why = ctrl.signal.reason instanceof CaseAborted ? ctrl.signal.reason.message : 'cancelled';
            if (why === 'timeout') {
              finish(
                AgentOutput.parse({
                  error: `timed out after ${timeoutS}s`,
                  latency: timeoutS,
                  metadata: { timed_out: true },
                }),
              );
            } else finish('cancelled');
          },
          { once: true },
        );
        let pending: Promise<AgentOutput>;
        try {
          pending = Promise.resolve(this.#agent.run(testCase.input, ctx));
        } catch (err) {
          finish(agentThrew(err));
          return;
        }
        pending.then(
          (raw) => finish(normaliseOutput(raw)),
          (err) => finish(agentThrew(err)),
        );
      });
    } finally {
      if (timer) clearTimeout(timer);
      runSignal?.removeEventListener('abort', onRunAbort);
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
    const key = canonicalJson(config);
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
  const issue = parsed.error.issues[0];
  return AgentOutput.parse({
    error: `adapter returned an invalid output (${issue.path.join('.') || '(root)'}: ${issue.message})`,
  });
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

// ---------------------------------------------------------------------------------------------------------
// runExperiment: the whole pipeline behind `harness run` (suite -> agent -> runner -> journal -> experiment).

/** The suite's display kinds applied over what each metric declared. */
function withDisplay(
  metrics: Record<string, MetricResult>,
  display: Record<string, MetricDisplay> | undefined,
): Record<string, MetricResult> {
  if (!display) return metrics;
  const out: Record<string, MetricResult> = {};
  for (const [name, m] of Object.entries(metrics))
    out[name] = Object.hasOwn(display, name) ? { ...m, display: display[name] } : m;
  return out;
}

export interface RunExperimentOptions {
  suite: SuiteLike;
  /** Use this agent instead of creating one from the suite's (or `agentSpec`'s) adapter. */
  agent?: Agent;
  /** Override the suite's adapter. */
  agentSpec?: { adapter: string; options?: Record<string, unknown> };
  /** Run folder to create (default `<runsRoot>/<YYYYMMDD-HHMMSS>-<slug>/`). */
  outDir?: string;
  runsRoot?: string;
  /** An existing run folder (or its journal) to continue: only missing case x repeat keys run. */
  resume?: string;
  concurrency?: number;
  repeat?: number;
  /** Seconds per attempt. */
  timeout?: number | null;
  retry?: Partial<RetryPolicy>;
  /** Case ids (`*` wildcards allowed) or `tag:<name>`; a case runs when any filter matches. */
  filter?: string[];
  /**
   * A further case predicate (ANDed with `filter`), e.g. a shard's subset. Unlike wrapping `suite.cases()`,
   * it keeps every case's suite position, so results of several runs can be merged in suite order.
   */
  caseFilter?: (testCase: TestCase) => boolean;
  /** Runs the planned case x repeat keys instead of the local runner (e.g. on a job queue). */
  execute?: RunExecutor;
  /** Check the suite's thresholds (default true). */
  thresholds?: boolean;
  /** Keep the run folder locked after returning, for a caller that still writes into it; it calls releaseLock. */
  keepLock?: boolean;
  signal?: AbortSignal;
  context?: PluginContext;
  slim?: (result: TestCaseResult) => TestCaseResult;
  metadata?: Record<string, unknown>;
  onStart?(info: { runDir: string; total: number; resumed: number }): void;
  onResult?(result: TestCaseResult, progress: RunProgress): void;
  /** OpenTelemetry tracing (lazily created by the CLI when asked for); the caller shuts it down. */
  tracer?: RunTracer;
  /**
   * A reproducible run (e.g. `soclab campaign --seed`): the header's id, and the clock its start and finish times
   * are read from. Default: a random id and the system clock. Case results keep their measured times.
   */
  reproducible?: { id: string; now: () => Date };
}

export interface RunExperimentResult {
  runDir: string;
  journalPath: string;
  experimentPath: string;
  /** The finished run, streamed from the journal. */
  view: ExperimentView;
  state: ExperimentState;
  metrics: Record<string, MetricResult>;
  thresholds: ThresholdOutcome | null;
  progress: RunProgress;
  /** 0 thresholds met (or none), 1 thresholds failed, 3 interrupted. */
  exitCode: 0 | 1 | 3;
  /** Release the run folder's lock when `keepLock` was set (idempotent; the process ending releases it too). */
  releaseLock(): void;
}

/** Build a case filter from `--filter` values. */
export function caseFilter(filters: readonly string[] | undefined): ((tc: TestCase) => boolean) | undefined {
  if (!filters || filters.length === 0) return undefined;
  const tests = filters.map((f) => {
    if (f.startsWith('tag:')) {
      const tag = f.slice(4);
      return (tc: TestCase) => tc.tags.includes(tag);
    }
    if (f.includes('*')) {
      const re = new RegExp(`^${f.split('*').map(escapeRegExp).join('.*')}$`);
      return (tc: TestCase) => re.test(tc.id);
    }
    return (tc: TestCase) => tc.id === f;
  });
  return (tc) => tests.some((t) => t(tc));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Lock a run folder for this process; on refusal the agent is closed before the error (exit 2) propagates. */
async function lockRunFolder(runDir: string, closeAgent: () => Promise<void>): Promise<RunLock> {
  try {
    return acquireRunLock(runDir);
  } catch (err) {
    await closeAgent();
    throw err;
  }
}

/** Adapter options as recorded in the experiment: secret-looking keys and known secret values redacted. */
export function redactOptions(options: Record<string, unknown>, redactor?: Redactor): Record<string, unknown> {
  const walk = (value: unknown, key?: string): unknown => {
    if (key !== undefined && looksSecret(key) && (typeof value === 'string' || typeof value === 'number')) {
      return REDACTED;
    }
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  const out = walk(options) as Record<string, unknown>;
  return redactor ? redactor.deep(out) : out;
}

async function countPlanned(
  suite: SuiteLike,
  repeat: number,
  filter: ((tc: TestCase) => boolean) | undefined,
  skip: ReadonlySet<string>,
): Promise<number> {
  if (!filter && skip.size === 0 && suite.plannedRuns) return suite.plannedRuns(repeat);
  let n = 0;
  for await (const tc of suite.cases()) {
    if (filter && !filter(tc)) continue;
    const reps = tc.repeat ?? repeat;
    for (let r = 0; r < reps; r++) if (!skip.has(resultKey({ test_id: tc.id, repeat: r }))) n++;
  }
  return n;
}

/**
 * Run a suite end to end: create the agent (an unknown adapter fails before any case runs), open or resume
 * the run folder, run the cases with results journaled as they finish, compute metrics and thresholds,
 * and write `experiment.json`. Interrupting through `signal` yields a valid partial run (state cancelled).
 */
export async function runExperiment(options: RunExperimentOptions): Promise<RunExperimentResult> {
  const { suite } = options;
  const headerNow = options.reproducible?.now ?? (() => new Date());
  const redactor = suite.redactor ?? new SecretScrubber();
  const scrub = (t: string) => redactor.text(t);
  const given = options.context ?? { baseDir: suite.baseDir, env: process.env };
  // One scrubber per run: secrets the adapter meets mid-run are scrubbed from every file written after that.
  const ctx: PluginContext = { ...given, secrets: given.secrets ?? redactor };
  const spec = options.agentSpec ?? suite.agent;

  // 1. Agent and runner (all plugin resolution happens here, before the run folder exists).
  let agent = options.agent;
  if (!agent) {
    const plugin = adapterRegistry.get(spec.adapter);
    const adapterOptions = parseOptions(plugin, spec.options ?? {});
    try {
      agent = await plugin.create(adapterOptions as never, ctx);
    } catch (err) {
      throw new RunSetupError(`cannot create the '${plugin.name}' agent: ${errorMessage(err)}`);
    }
  }
  const closeAgent = async () => {
    try {
      await agent.close?.();
    } catch {
      // Closing is best effort; the run's results are already on disk.
    }
  };
  let runner: AgentRunner;
  try {
    runner = new AgentRunner(agent, {
      evaluators: suite.evaluators,
      metrics: suite.metrics,
      concurrency: options.concurrency,
      timeout: options.timeout,
      repeat: options.repeat,
      retry: options.retry,
      context: ctx,
      vars: suite.vars,
      slim: options.slim,
    });
    await runner.prepare().catch((err: unknown) => {
      throw new RunSetupError(errorMessage(err));
    });
  } catch (err) {
    await closeAgent();
    throw err;
  }

  // A filter that selects nothing is almost always a typo: refuse before creating a run folder.
  let plannedFresh: number | undefined;
  if (!options.resume && options.filter && options.filter.length > 0) {
    plannedFresh = await countPlanned(suite, runner.repeat, caseFilter(options.filter), new Set());
    if (plannedFresh === 0) {
      await closeAgent();
      throw new RunSetupError(`no case matches --filter ${options.filter.join(' ')}`);
    }
  }

  // 2. Run folder: new, or resumed from an existing journal.
  const slim = options.slim ?? slimResult;
  const previous = new Map<string, { index: number; result: TestCaseResult }>();
  let runDir: string;
  let journal: JournalWriter;
  let header: ExperimentHeader;
  let resumedIndex: JournalIndex | null = null;
  let lock: RunLock;
  let runTrace: RunTrace | undefined;
  const byFilter = caseFilter(options.filter);
  const extra = options.caseFilter;
  const filter = byFilter && extra ? (tc: TestCase) => byFilter(tc) && extra(tc) : (byFilter ?? extra);
  if (options.resume) {
    const target = resolve(options.resume);
    runDir = target.endsWith('.jsonl') ? resolve(target, '..') : target;
    const journalPath = join(runDir, JOURNAL_FILE);
    if (!existsSync(journalPath)) {
      await closeAgent();
      throw new Error(`cannot resume: no ${JOURNAL_FILE} in ${runDir}`);
    }
    // One writer per run folder: taken before the journal is read, so no other process appends after that.
    lock = await lockRunFolder(runDir, closeAgent);
    const index = indexJournal(journalPath, (r, i) => {
      previous.set(resultKey(r), { index: i, result: slim(r) });
    });
    if (!index.header) {
      lock.release();
      await closeAgent();
      throw new Error(`cannot resume: ${journalPath} has no header line`);
    }
    header = { ...index.header, state: 'running', finished_at: null };
    runTrace = options.tracer?.startRun(header);
    resumedIndex = index;
    journal = JournalWriter.append(journalPath, scrub);
    journal.write({ type: 'resume', at: new Date().toISOString() });
  } else {
    runDir = options.outDir ? resolve(options.outDir) : createRunFolder(suite.name, options.runsRoot ?? 'runs');
    mkdirSync(runDir, { recursive: true });
    lock = await lockRunFolder(runDir, closeAgent);
    const described = agent.describe?.() ?? {};
    const descriptor: AgentDescriptor = {
      ...described,
      adapter: described.adapter ?? spec.adapter,
      options: redactOptions({ ...(spec.options ?? {}), ...(described.options ?? {}) }, redactor),
    };
    if ('label' in suite.agent && suite.agent.label && !descriptor.label) descriptor.label = suite.agent.label;
    if ('version' in suite.agent && suite.agent.version && !descriptor.version)
      descriptor.version = suite.agent.version;
    header = {
      schema_version: '1',
      id: options.reproducible?.id ?? randomUUID().replace(/-/g, '').slice(0, 12),
      name: suite.name,
      state: 'running',
      suite: {
        name: suite.name,
        version: suite.version,
        content_hash: suite.contentHash,
        path: suite.path,
        total_cases: suite.totalCases,
        ...(suite.headline ? { headline: suite.headline } : {}),
      },
      agent: descriptor,
      started_at: headerNow().toISOString(),
      finished_at: null,
      metrics: {},
      thresholds: null,
      environment: captureEnvironment(suite.baseDir),
      metadata: {
        ...(options.metadata ?? {}),
        run_options: {
          concurrency: runner.concurrency,
          repeat: runner.repeat,
          timeout: runner.timeout,
          filter: options.filter ?? [],
        },
        ...(suite.quarantine && suite.quarantine.length > 0 ? { quarantine: suite.quarantine } : {}),
        ...(suite.description ? { description: suite.description } : {}),
      },
    };
    runTrace = options.tracer?.startRun(header);
    // The run's trace id in the journal header (and so experiment.json): the run links to its trace.
    if (runTrace) header.metadata = { ...header.metadata, otel: runTrace.ids };
    try {
      journal = JournalWriter.create(join(runDir, JOURNAL_FILE), scrub);
    } catch (err) {
      lock.release();
      await closeAgent();
      throw new Error(`cannot create a journal in ${runDir}: ${errorMessage(err)}`);
    }
    journal.header(header);
  }
  const journalPath = join(runDir, JOURNAL_FILE);
  const experimentPath = join(runDir, EXPERIMENT_FILE);

  // 3. Run.
  const skip = new Set(previous.keys());
  let outcome: RunOutcome;
  try {
    const total =
      plannedFresh !== undefined && !options.caseFilter
        ? plannedFresh
        : await countPlanned(suite, runner.repeat, filter, skip);
    options.onStart?.({ runDir, total, resumed: skip.size });
    const hooks = { signal: options.signal, skip, filter, journal, total, onResult: options.onResult, trace: runTrace };
    outcome = options.execute
      ? await options.execute({ runner, suite, header, runDir, resumed: resumedIndex !== null, hooks, slim })
      : await runner.run(suite.cases(), hooks);
  } catch (err) {
    // A failure of the harness itself (not of a case): record what we have, then report it.
    journal.end({
      state: 'failed',
      finished_at: headerNow().toISOString(),
      metrics: {},
      thresholds: null,
    });
    journal.close();
    runTrace?.end('failed', {});
    lock.release();
    await closeAgent();
    throw err;
  }
  await closeAgent();

  // 4. Metrics over everything in the journal (resumed results included), then thresholds.
  let all: TestCaseResult[];
  let locations: ResultLocation[];
  if (resumedIndex) {
    for (let i = 0; i < outcome.results.length; i++) {
      const r = outcome.results[i];
      previous.set(resultKey(r), { index: outcome.indexes[i], result: r });
    }
    all = [...previous.values()]
      .sort((a, b) => a.index - b.index || a.result.repeat - b.result.repeat)
      .map((e) => e.result);
    const byKey = new Map(resumedIndex.results.map((l) => [l.key, l]));
    for (const l of outcome.locations) byKey.set(l.key, l);
    locations = sortLocations([...byKey.values()]);
  } else {
    // A fresh run has no duplicates and its results are already in order: no copies.
    all = outcome.results;
    locations = outcome.locations;
  }
  const metrics = withDisplay(runner.computeMetrics(all), suite.display);
  const rules = suite.thresholds ?? {};
  const thresholds =
    options.thresholds !== false && Object.keys(rules).length > 0 ? checkThresholds(metrics, rules) : null;
  const state: ExperimentState = outcome.state;
  const end = { state, finished_at: headerNow().toISOString(), metrics, thresholds };
  journal.end(end);
  journal.close();
  runTrace?.end(state, metrics);
  all.length = 0; // metrics are computed; let the slim copies go before reports are written

  // 5. experiment.json, streamed from the journal (using the locations recorded while writing it).
  const view = viewOfJournal({
    path: journalPath,
    header,
    end: { type: 'end', ...end },
    results: locations,
    badLines: resumedIndex?.badLines ?? 0,
  });
  await writeExperimentFile(view, experimentPath, scrub);
  if (!options.keepLock) lock.release();
  return {
    runDir,
    journalPath,
    experimentPath,
    view,
    state,
    metrics,
    thresholds,
    progress: outcome.progress,
    exitCode: state === 'cancelled' ? 3 : thresholds && !thresholds.passed ? 1 : 0,
    releaseLock: () => lock.release(),
  };
}
