import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Agent, adapterRegistry } from '../adapters/base.js';
import { makeDirectory } from '../core/directories.js';
import { errorCode, errorMessage } from '../core/errors.js';
import type { RunExecutor, RunOutcome, RunProgress } from '../core/execution.js';
import type {
  AgentDescriptor,
  ExperimentState,
  MetricDisplay,
  MetricResult,
  RunEnvironment,
  ThresholdOutcome,
} from '../core/experiment.js';
import type { Redactor } from '../core/redactor.js';
import { resultKey, type TestCaseResult } from '../core/result.js';
import type { SuiteLike } from '../core/suite.js';
import type { TestCase } from '../core/testcase.js';
import type { ExperimentHeader, ExperimentView } from '../core/view.js';
import { parseOptions } from '../evaluators/base.js';
import type { PluginContext } from '../plugins/registry.js';
import { looksSecret, REDACTED, SecretScrubber } from '../secrets/scrubber.js';
import { acquireRunLock, type RunLock } from '../store/run-lock.js';
import type { RunTrace, RunTracer } from '../telemetry/types.js';
import { AgentRunner } from './agent-runner.js';
import { bothFilters, caseFilter, countPlanned } from './case-filter.js';
import { captureEnvironment } from './environment.js';
import { indexJournal, JOURNAL_FILE, type JournalIndex, JournalWriter, sortLocations } from './journal.js';
import type { RetryPolicy } from './retry.js';
import { createRunFolder, EXPERIMENT_FILE, viewOfJournal, writeExperimentFile } from './run-folder.js';
import { slimResult } from './slim.js';
import { checkThresholds } from './thresholds.js';

// runExperiment: the whole pipeline behind `harness run`, as named phases: createAgent -> (filter check) ->
// openRunFolder (buildHeader for a new run) -> execute -> finish.

/** The run could not start (agent creation failed, nothing selected): a configuration problem; nothing ran. */
export class RunSetupError extends Error {
  /** `AEH_ERR_RUN_SETUP`, or the code of the harness error that stopped the setup (its `cause`). */
  readonly code: string = 'AEH_ERR_RUN_SETUP';
  override name = 'RunSetupError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = errorCode(options?.cause) ?? this.code;
  }
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

/** A slimmed result and its suite position, for metrics over a resumed run. */
type KeptResult = { index: number; result: TestCaseResult };

/** The agent and the runner that drives it, ready to run (suite-level evaluators have checked their setup). */
export interface PreparedAgent {
  agent: Agent;
  runner: AgentRunner;
  /** Close the agent; best effort (the run's results are already on disk). */
  close(): Promise<void>;
}

/**
 * Phase 1: create the agent (unless one was given) and its runner. All plugin resolution happens here, before the
 * run folder exists, so an unknown adapter, evaluator or metric fails with nothing written.
 */
export async function createAgent(options: RunExperimentOptions, ctx: PluginContext): Promise<PreparedAgent> {
  const { suite } = options;
  const spec = options.agentSpec ?? suite.agent;
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
  const created = agent;
  const close = async () => {
    try {
      await created.close?.();
    } catch {
      // Closing is best effort; the run's results are already on disk.
    }
  };
  try {
    const runner = new AgentRunner(created, {
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
    return { agent: created, runner, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** How the agent is recorded in the header: what it describes, its adapter, and options with secrets redacted. */
export function describeAgent(
  agent: Pick<Agent, 'describe'>,
  spec: { adapter: string; options?: Record<string, unknown> },
  suiteAgent: SuiteLike['agent'],
  redactor?: Redactor,
): AgentDescriptor {
  const described = agent.describe?.() ?? {};
  const descriptor: AgentDescriptor = {
    ...described,
    adapter: described.adapter ?? spec.adapter,
    options: redactOptions({ ...(spec.options ?? {}), ...(described.options ?? {}) }, redactor),
  };
  if (suiteAgent.label && !descriptor.label) descriptor.label = suiteAgent.label;
  if (suiteAgent.version && !descriptor.version) descriptor.version = suiteAgent.version;
  return descriptor;
}

/** What the header of a new run is built from. */
export interface HeaderInput {
  suite: SuiteLike;
  agent: AgentDescriptor;
  runner: { concurrency: number; repeat: number; timeout: number | null };
  id: string;
  startedAt: Date;
  environment: RunEnvironment;
  /** `--filter` values, recorded with the run options. */
  filter?: string[];
  /** The caller's metadata (merged under the run's own keys). */
  metadata?: Record<string, unknown>;
}

/** The header of a new run (state running): suite identity, agent, run options, quarantine and description. */
export function buildHeader(input: HeaderInput): ExperimentHeader {
  const { suite, runner } = input;
  return {
    schema_version: '1',
    id: input.id,
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
    agent: input.agent,
    started_at: input.startedAt.toISOString(),
    finished_at: null,
    metrics: {},
    thresholds: null,
    environment: input.environment,
    metadata: {
      ...(input.metadata ?? {}),
      run_options: {
        concurrency: runner.concurrency,
        repeat: runner.repeat,
        timeout: runner.timeout,
        filter: input.filter ?? [],
      },
      ...(suite.quarantine && suite.quarantine.length > 0 ? { quarantine: suite.quarantine } : {}),
      ...(suite.description ? { description: suite.description } : {}),
    },
  };
}

/** An open run folder: locked by this process, its journal open for appending. */
export interface OpenRun {
  runDir: string;
  journal: JournalWriter;
  header: ExperimentHeader;
  lock: RunLock;
  runTrace: RunTrace | undefined;
  /** The journal's index when this invocation resumes a run; null for a new run. */
  resumedIndex: JournalIndex | null;
  /** Results already journaled (resume), slimmed, by key. */
  previous: Map<string, KeptResult>;
}

/** Everything the phases after agent creation share. */
interface RunScope {
  options: RunExperimentOptions;
  prepared: PreparedAgent;
  redactor: Redactor;
  scrub: (text: string) => string;
  slim: (result: TestCaseResult) => TestCaseResult;
  now: () => Date;
}

/**
 * Phase 2: open the run folder: resume an existing journal (only missing keys will run) or create a new folder
 * with its header. The folder is locked before its journal is read or written; on failure the agent is closed.
 */
export async function openRunFolder(scope: RunScope): Promise<OpenRun> {
  const { options, prepared, redactor, scrub, slim } = scope;
  const { suite } = options;
  const previous = new Map<string, KeptResult>();
  if (options.resume) {
    const target = resolve(options.resume);
    const runDir = target.endsWith('.jsonl') ? resolve(target, '..') : target;
    const journalPath = join(runDir, JOURNAL_FILE);
    // A resume target that is not a run, or a run of another suite, is a setup error (exit 2, nothing ran): it
    // used to exit 3 for a mistyped folder, and to append another suite's results to the run silently.
    if (!existsSync(journalPath)) {
      await prepared.close();
      throw new RunSetupError(`cannot resume: no ${JOURNAL_FILE} in ${runDir}`);
    }
    // One writer per run folder: taken before the journal is read, so no other process appends after that.
    const lock = await lockRunFolder(runDir, prepared.close);
    const index = indexJournal(journalPath, (r, i) => {
      previous.set(resultKey(r), { index: i, result: slim(r) });
    });
    if (!index.header) {
      lock.release();
      await prepared.close();
      throw new RunSetupError(`cannot resume: ${journalPath} has no header line`);
    }
    if (index.header.suite.name !== suite.name) {
      lock.release();
      await prepared.close();
      throw new RunSetupError(
        `cannot resume ${runDir}: it is a run of suite '${index.header.suite.name}', not '${suite.name}'`,
      );
    }
    const header: ExperimentHeader = { ...index.header, state: 'running', finished_at: null };
    const runTrace = options.tracer?.startRun(header);
    const journal = JournalWriter.append(journalPath, scrub);
    journal.write({ type: 'resume', at: new Date().toISOString() });
    return { runDir, journal, header, lock, runTrace, resumedIndex: index, previous };
  }
  const runDir = options.outDir ? resolve(options.outDir) : createRunFolder(suite.name, options.runsRoot ?? 'runs');
  makeDirectory(runDir);
  const lock = await lockRunFolder(runDir, prepared.close);
  const header = buildHeader({
    suite,
    agent: describeAgent(prepared.agent, options.agentSpec ?? suite.agent, suite.agent, redactor),
    runner: prepared.runner,
    id: options.reproducible?.id ?? randomUUID().replace(/-/g, '').slice(0, 12),
    startedAt: scope.now(),
    environment: captureEnvironment(suite.baseDir),
    filter: options.filter,
    metadata: options.metadata,
  });
  const runTrace = options.tracer?.startRun(header);
  // The run's trace id in the journal header (and so experiment.json): the run links to its trace.
  if (runTrace) header.metadata = { ...header.metadata, otel: runTrace.ids };
  let journal: JournalWriter;
  try {
    journal = JournalWriter.create(join(runDir, JOURNAL_FILE), scrub);
  } catch (err) {
    lock.release();
    await prepared.close();
    throw new Error(`cannot create a journal in ${runDir}: ${errorMessage(err)}`);
  }
  journal.header(header);
  return { runDir, journal, header, lock, runTrace, resumedIndex: null, previous };
}

/**
 * Phase 4: metrics over everything in the journal (resumed results included), thresholds, the journal's end
 * line, and `experiment.json` streamed from the journal. Releases the lock unless `keepLock` was asked for.
 */
export async function finish(scope: RunScope, run: OpenRun, outcome: RunOutcome): Promise<RunExperimentResult> {
  const { options, prepared, scrub } = scope;
  const { suite } = options;
  const { runDir, journal, header, lock, runTrace, resumedIndex, previous } = run;
  const journalPath = join(runDir, JOURNAL_FILE);
  const experimentPath = join(runDir, EXPERIMENT_FILE);
  let all: TestCaseResult[];
  let locations: RunOutcome['locations'];
  if (resumedIndex) {
    for (let i = 0; i < outcome.results.length; i++) {
      const r = outcome.results[i] as TestCaseResult;
      previous.set(resultKey(r), { index: outcome.indexes[i] as number, result: r });
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
  const metrics = withDisplay(prepared.runner.computeMetrics(all), suite.display);
  const rules = suite.thresholds ?? {};
  const thresholds =
    options.thresholds !== false && Object.keys(rules).length > 0 ? checkThresholds(metrics, rules) : null;
  const state: ExperimentState = outcome.state;
  const end = { state, finished_at: scope.now().toISOString(), metrics, thresholds };
  journal.end(end);
  journal.close();
  runTrace?.end(state, metrics);
  all.length = 0; // metrics are computed; let the slim copies go before reports are written

  // experiment.json, streamed from the journal (using the locations recorded while writing it).
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

/**
 * Run a suite end to end: create the agent (an unknown adapter fails before any case runs), open or resume
 * the run folder, run the cases with results journaled as they finish, compute metrics and thresholds,
 * and write `experiment.json`. Interrupting through `signal` yields a valid partial run (state cancelled).
 */
export async function runExperiment(options: RunExperimentOptions): Promise<RunExperimentResult> {
  const { suite } = options;
  const now = options.reproducible?.now ?? (() => new Date());
  const redactor = suite.redactor ?? new SecretScrubber();
  const scrub = (t: string) => redactor.text(t);
  const given = options.context ?? { baseDir: suite.baseDir, env: process.env };
  // One scrubber per run: secrets the adapter meets mid-run are scrubbed from every file written after that.
  const ctx: PluginContext = { ...given, secrets: given.secrets ?? redactor };

  const prepared = await createAgent(options, ctx);
  const { runner } = prepared;

  // A filter that selects nothing is almost always a typo: refuse before creating a run folder.
  let plannedFresh: number | undefined;
  if (!options.resume && options.filter && options.filter.length > 0) {
    plannedFresh = await countPlanned(suite, runner.repeat, caseFilter(options.filter), new Set());
    if (plannedFresh === 0) {
      await prepared.close();
      throw new RunSetupError(`no case matches --filter ${options.filter.join(' ')}`);
    }
  }

  const slim = options.slim ?? slimResult;
  const scope: RunScope = { options, prepared, redactor, scrub, slim, now };
  const filter = bothFilters(caseFilter(options.filter), options.caseFilter);
  const run = await openRunFolder(scope);
  const { runDir, journal, header, lock, runTrace, resumedIndex } = run;

  // Phase 3: run the planned keys, locally or through the caller's executor.
  const skip = new Set(run.previous.keys());
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
    journal.end({ state: 'failed', finished_at: now().toISOString(), metrics: {}, thresholds: null });
    journal.close();
    runTrace?.end('failed', {});
    lock.release();
    await prepared.close();
    throw err;
  }
  await prepared.close();
  return finish(scope, run, outcome);
}

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
