import type { Command } from '@commander-js/extra-typings';
import type { Agent } from '../../adapters/base.js';
import { errorMessage } from '../../core/errors.js';
import type { ExperimentView } from '../../core/view.js';
import type { RunExperimentOptions, RunExperimentResult } from '../../runner/experiment.js';
import type { LoadedSuite } from '../../suites/loader.js';
import { CliError, collect, EXIT, positiveInt, positiveSeconds } from '../common.js';
import { failureReason } from '../daily-loop.js';

/** Flags of `harness run` as commander parses them. */
export interface RunFlags {
  agent?: string;
  concurrency?: number;
  repeat?: number;
  timeout?: number;
  filter?: string[];
  out?: string;
  runsDir: string;
  format: string;
  thresholds: boolean;
  resume?: string;
  progress: boolean;
  record?: string;
  replay?: string;
  store?: string;
  index?: boolean;
  otel?: boolean;
  shard?: string;
  queue?: string;
  queueStallAfter?: number;
  queueOutageBudget?: number;
  k?: string;
  lastFailed?: boolean;
  maxfail?: number;
  exitfirst?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

/**
 * Everything a run needs, decoupled from commander. Later features (record/replay, shards, queues, store
 * indexing) add a field here, fill it in `buildRunRequest`, and use it in `executeRun`.
 */
export interface RunRequest {
  suitePath: string;
  agentSpec?: { adapter: string; options?: Record<string, unknown> };
  concurrency?: number;
  repeat?: number;
  timeout?: number;
  filter: string[];
  outDir?: string;
  runsDir: string;
  formats: string[];
  thresholds: boolean;
  resume?: string;
  progress: boolean;
  record?: string;
  replay?: string;
  /** Run index to add the finished run to (`--store`); `index: false` skips it. */
  store?: string;
  index?: boolean;
  /** `--otel`: export OpenTelemetry traces even without OTEL_EXPORTER_OTLP_ENDPOINT (default localhost:4318). */
  otel?: boolean;
  /** `--shard i/n`: run only the cases of shard i (1-based) of n. */
  shard?: { index: number; count: number };
  /** `--queue redis://...`: run the cases on `harness worker` processes through this Redis. */
  queue?: string;
  /** `--queue-stall-after <s>` and `--queue-outage-budget <s>`: see the queue coordinator. */
  queueStallAfter?: number;
  queueOutageBudget?: number;
  /** `-k EXPR`: only cases whose id, name or tags match the expression. */
  keyword?: string;
  /** `--last-failed`: only the cases that failed or errored in the latest run of this suite under runsDir. */
  lastFailed?: boolean;
  /** `--maxfail N` / `-x` (N = 1): stop after N failed or errored case runs; exit 1. */
  maxfail?: number;
  /** `-q`: no report table, only the closing summary; `-v`: one line per case run as well. */
  verbosity?: 'quiet' | 'normal' | 'verbose';
}

/** Hooks for code that drives `executeRun` (tests, other commands). */
export interface RunHooksCli {
  /** Replace the agent built from the suite/--agent. */
  agent?: Agent;
  /** Adjust the runExperiment options just before the run starts. */
  configure?(options: RunExperimentOptions, suite: LoadedSuite): void | Promise<void>;
  /** Called after reports are written. */
  after?(result: RunExperimentResult, suite: LoadedSuite): void | Promise<void>;
}

/** Add the run options to a command (shared by `run` and its `evaluate` alias). */
export function addRunOptions(cmd: Command) {
  return cmd
    .argument('<suite>', 'suite file (.yaml, .yml, .json)')
    .option(
      '-a, --agent <spec>',
      'override the agent: an adapter name (echo, mock...), a module path ./agent.ts#run, or package.module:callable',
    )
    .option('-c, --concurrency <n>', 'cases in flight at once (default 8)', positiveInt('--concurrency'))
    .option('-r, --repeat <n>', "runs per case (a case's own repeat wins)", positiveInt('--repeat'))
    .option(
      '-t, --timeout <seconds>',
      "per-attempt timeout (a case's own timeout wins; default 300)",
      positiveSeconds('--timeout'),
    )
    .option('-f, --filter <id|tag:name>', 'only matching cases (repeatable; ids accept * wildcards)', collect)
    .option('-o, --out <dir>', 'run folder (default: <runs-dir>/<YYYYMMDD-HHMMSS>-<suite>/)')
    .option('--runs-dir <dir>', 'where default run folders are created', 'runs')
    .option('--format <list>', 'reporters, comma-separated (console prints; others write report.<ext>)', 'console,json')
    .option('--thresholds', "check the suite's thresholds (default)", true)
    .option('--no-thresholds', 'do not check thresholds (exit 0 unless the run fails)')
    .option('--resume <run>', 'continue an interrupted run folder: only missing case x repeat keys run')
    .option('--no-progress', 'no progress bar (it only shows on a TTY anyway)')
    .option('--record <dir>', 'store every agent exchange in <dir>/cassette.jsonl (keyed by case id and repeat)')
    .option(
      '--replay <dir>',
      'answer from a recorded cassette instead of calling the agent (missing entries are errors)',
    )
    .option(
      '--store <url>',
      'run index to add the run to: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)',
    )
    .option('--no-index', 'do not add the run to the run index')
    .option(
      '--otel',
      'export OpenTelemetry traces over OTLP/HTTP (on by default when OTEL_EXPORTER_OTLP_ENDPOINT is set; see docs/observability.md)',
    )
    .option('--shard <i/n>', 'run only shard i of n (cases split by a hash of their id); combine with harness merge')
    .option('--queue <redis-url>', 'run the cases on harness worker processes through Redis (BullMQ)')
    .option(
      '--queue-stall-after <seconds>',
      'with --queue: say so when no result arrives for this long while jobs wait and no worker is connected (default 10)',
      positiveSeconds('--queue-stall-after'),
    )
    .option(
      '--queue-outage-budget <seconds>',
      'with --queue: stop with a partial run when Redis stays unreachable this long mid-run (default 300)',
      positiveSeconds('--queue-outage-budget'),
    )
    .option('-k <expr>', 'only cases whose id, name or tags contain the words: -k "refund and not slow"')
    .option('--lf, --last-failed', 'rerun only the cases that failed or errored in the latest run of this suite')
    .option('--maxfail <n>', 'stop after n failed or errored case runs (exit 1)', positiveInt('--maxfail'))
    .option('-x, --exitfirst', 'stop at the first failed or errored case run (--maxfail 1)')
    .option('-q, --quiet', 'no report table: the result line and failures by reason only')
    .option('-v, --verbose', 'also one line per case run with its status and reason');
}

export function register(program: Command): void {
  const cmd = program
    .command('run')
    .alias('evaluate')
    .description('run a suite against an agent; write the journal, experiment.json and reports to a run folder');
  addRunOptions(cmd).action(async (suitePath, flags) => {
    process.exitCode = await runCommand(suitePath, flags as RunFlags);
  });
}

/** Turn flags into a RunRequest (no I/O). */
export function buildRunRequest(suitePath: string, flags: RunFlags): RunRequest {
  const formats = flags.format
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (formats.length === 0) throw new CliError('--format needs at least one reporter name');
  return {
    suitePath,
    agentSpec: flags.agent ? parseAgentFlag(flags.agent) : undefined,
    concurrency: flags.concurrency,
    repeat: flags.repeat,
    timeout: flags.timeout,
    filter: flags.filter ?? [],
    outDir: flags.out,
    runsDir: flags.runsDir,
    formats,
    thresholds: flags.thresholds,
    resume: flags.resume,
    progress: flags.progress,
    record: flags.record,
    replay: flags.replay,
    store: flags.store,
    index: flags.index,
    otel: flags.otel,
    shard: flags.shard ? parseShardFlag(flags.shard) : undefined,
    queue: flags.queue,
    queueStallAfter: flags.queueStallAfter,
    queueOutageBudget: flags.queueOutageBudget,
    keyword: flags.k,
    lastFailed: flags.lastFailed,
    maxfail: flags.exitfirst ? 1 : flags.maxfail,
    verbosity:
      flags.quiet && flags.verbose ? badVerbosity() : flags.quiet ? 'quiet' : flags.verbose ? 'verbose' : 'normal',
  };
}

function badVerbosity(): never {
  throw new CliError('-q and -v cannot be combined', EXIT.usage);
}

function parseShardFlag(text: string): { index: number; count: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new CliError(`--shard expects i/n with 1 <= i <= n, e.g. 2/3 (got '${text}')`);
  }
  return { index, count };
}

/** `--agent echo` names an adapter; anything that looks like a path is a module agent (relative to cwd). */
export function parseAgentFlag(spec: string): { adapter: string; options?: Record<string, unknown> } {
  // The seed's `package.module:callable` (e.g. examples.basic.mock_agent:support_agent): the generic adapter.
  if (/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*:[A-Za-z_$][\w$]*$/.test(spec)) {
    return { adapter: 'generic', options: { module: spec } };
  }
  const looksLikePath = /[/\\#]/.test(spec) || /\.(m?[jt]s|c[jt]s)$/.test(spec);
  if (!looksLikePath) return { adapter: spec };
  const hash = spec.lastIndexOf('#');
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const exportName = hash > 0 ? spec.slice(hash) : '';
  return { adapter: 'module', options: { module: `${resolvePath(file)}${exportName}` } };
}

function resolvePath(p: string): string {
  // Relative to where the user typed the command, not to the suite.
  return p.startsWith('/') ? p : `${process.cwd()}/${p.replace(/^\.\//, '')}`;
}

export async function runCommand(suitePath: string, flags: RunFlags, hooks: RunHooksCli = {}): Promise<number> {
  let scrub = (t: string) => t;
  try {
    const request = buildRunRequest(suitePath, flags);
    return await executeRun(request, hooks, (s) => {
      scrub = s;
    });
  } catch (err) {
    const { fail } = await import('../common.js');
    return fail(err, scrub);
  }
}

/** The run pipeline: plugins -> suite -> reporters check -> run (progress, Ctrl+C) -> reports -> exit code. */
export async function executeRun(
  request: RunRequest,
  hooks: RunHooksCli = {},
  setScrub: (scrub: (t: string) => string) => void = () => {},
): Promise<number> {
  // The suite first: its `plugins:` may register the reporters named in --format. Both happen before any case runs.
  const suite = await loadRunSuite(request);
  const reporters = await resolveReporters(request.formats);
  setScrub((t) => suite.redactor.text(t));

  const { runExperiment } = await import('../../runner/experiment.js');
  const selection = await selectCases(request, suite);
  const controller = new AbortController();
  const progress = await createProgress(request.progress && request.verbosity !== 'quiet');
  let stoppedAtMaxfail = false;
  const stopSigint = onSigint(controller, progress);
  const options: RunExperimentOptions = {
    suite,
    // The folder stays locked until its reports and index entry are written too (one writer per run folder).
    keepLock: true,
    agent: hooks.agent,
    agentSpec: request.agentSpec ? withSuiteOptions(request.agentSpec, suite) : undefined,
    outDir: request.outDir,
    runsRoot: request.runsDir,
    resume: request.resume,
    concurrency: request.concurrency,
    repeat: request.repeat,
    timeout: request.timeout,
    filter: request.filter,
    thresholds: request.thresholds,
    signal: controller.signal,
    onStart: ({ runDir, total, resumed }) => {
      progress.start(total, runDir, resumed);
    },
    onResult: (r, p) => {
      progress.update(p.done, p.failed + p.errors);
      if (request.verbosity === 'verbose') progress.note(caseLine(r));
      if (request.maxfail && !stoppedAtMaxfail && p.failed + p.errors >= request.maxfail) {
        stoppedAtMaxfail = true;
        controller.abort();
      }
    },
  };
  if (request.outDir && !request.resume) await refuseExistingRun(request.outDir);
  if ((request.record || request.replay) && !hooks.agent) {
    const { cassetteAgent } = await import('../../adapters/cassette.js');
    options.agent = await cassetteAgent(request, suite, options.agentSpec).catch((err: Error) => {
      throw err.name === 'CassetteError' ? new CliError(err.message, EXIT.usage, { cause: err }) : err;
    });
  }
  if (request.shard || request.queue || request.resume) {
    const { configureScale } = await import('../../scale/run-options.js');
    await configureScale(request, options, suite, (t) => progress.note(t)).catch((err: unknown) => {
      progress.stop();
      stopSigint();
      throw err;
    });
  }
  if (selection) {
    const shard = options.caseFilter;
    options.caseFilter = shard ? (tc) => shard(tc) && selection(tc) : selection;
  }
  const { attachJudgeSession } = await import('../../evaluators/support/judge-run.js');
  attachJudgeSession(options, suite, request);
  // OpenTelemetry: the SDK is imported only when tracing is asked for, so a plain run never loads it.
  const { telemetryRequested, loadRunTracer } = await import('../../telemetry/index.js');
  const tracer = telemetryRequested(request.otel) ? await loadRunTracer({ scrubber: suite.redactor }) : null;
  if (tracer) options.tracer = tracer;
  await hooks.configure?.(options, suite);
  let result: RunExperimentResult;
  try {
    result = await runExperiment(options);
  } finally {
    progress.stop();
    stopSigint();
    await tracer?.shutdown().catch((err: unknown) => {
      process.stderr.write(`warning: could not export traces: ${suite.redactor.text(String(err))}\n`);
    });
  }

  // A reporter that fails is reported after the rest: the other reports, the summary and the index entry are
  // still written (they used to be skipped, losing work the run had done).
  let reportFailure: unknown = null;
  try {
    const shown = request.verbosity === 'quiet' ? reporters.filter((r) => r.name !== 'console') : reporters;
    await writeReports(result.view, shown, result.runDir, (t) => suite.redactor.text(t)).catch((err: unknown) => {
      reportFailure = err;
    });
    const { failureSummary } = await import('../daily-loop.js');
    const summary = await failureSummary(result.view);
    if (request.verbosity === 'quiet') summary.unshift(await resultLine(result.view));
    if (summary.length > 0) process.stdout.write(suite.redactor.text(`${summary.join('\n')}\n`));
    await hooks.after?.(result, suite);
    if (request.index !== false) {
      const { indexAfterRun } = await import('../../store/auto-index.js');
      await indexAfterRun(result.runDir, { store: request.store, runsDir: request.runsDir });
    }
  } finally {
    result.releaseLock();
  }
  process.stderr.write(`run folder: ${relativeToCwd(result.runDir)}\n`);
  if (reportFailure !== null) throw reportFailure;
  if (stoppedAtMaxfail) {
    process.stderr.write(
      `stopped after ${request.maxfail} failed or errored case run${request.maxfail === 1 ? '' : 's'} (--maxfail ${request.maxfail}); rerun them with --last-failed\n`,
    );
    return EXIT.gate;
  }
  if (result.state === 'cancelled') {
    // A queued run resumes on the queue: without --queue the missing cases would run locally instead.
    const { redactRedisUrl } = await import('../../scale/queue/redis.js');
    const queue = request.queue ? ` --queue ${redactRedisUrl(request.queue)}` : '';
    process.stderr.write(
      `interrupted: resume with  harness run ${request.suitePath}${queue} --resume ${relativeToCwd(result.runDir)}\n`,
    );
  }
  return result.exitCode;
}

/** `-k` and `--last-failed` as one case predicate (null: every case); refuses a selection that matches nothing. */
async function selectCases(
  request: RunRequest,
  suite: LoadedSuite,
): Promise<((tc: import('../../core/testcase.js').TestCase) => boolean) | null> {
  const { parseKeywordExpression, lastFailedCases } = await import('../daily-loop.js');
  const keyword = request.keyword !== undefined ? parseKeywordExpression(request.keyword) : null;
  let failed: Set<string> | null = null;
  if (request.lastFailed) {
    const last = await lastFailedCases(suite.name, request.runsDir);
    if (!last)
      process.stderr.write(
        `--last-failed: no earlier run of '${suite.name}' in ${request.runsDir}: running every case\n`,
      );
    else if (last.ids.size === 0)
      process.stderr.write(`--last-failed: nothing failed in ${relativeToCwd(last.runDir)}: running every case\n`);
    else {
      failed = last.ids;
      process.stderr.write(`--last-failed: ${last.ids.size} case(s) that failed in ${relativeToCwd(last.runDir)}\n`);
    }
  }
  if (!keyword && !failed) return null;
  const select = (tc: import('../../core/testcase.js').TestCase) =>
    (!keyword || keyword(tc)) && (!failed || failed.has(tc.id));
  for await (const tc of suite.cases()) if (select(tc)) return select;
  const what = [request.keyword !== undefined ? `-k "${request.keyword}"` : '', failed ? '--last-failed' : '']
    .filter(Boolean)
    .join(' with ');
  throw new CliError(`no case matches ${what}`, EXIT.usage);
}

/** One line per case run for -v: status, id, call time and why it failed. */
function caseLine(r: import('../../core/result.js').TestCaseResult): string {
  const status = r.status.toUpperCase().padEnd(7);
  const id = r.repeat > 0 ? `${r.test_id}#${r.repeat}` : r.test_id;
  if (r.status === 'passed' || r.status === 'skipped') return `${status} ${id}`;
  return `${status} ${id}  ${failureReason(r)}`;
}

/** The result line `-q` prints instead of the report table. */
async function resultLine(view: ExperimentView): Promise<string> {
  const counts = { passed: 0, failed: 0, error: 0, skipped: 0 };
  for await (const r of view.results()) counts[r.status]++;
  const ran = counts.passed + counts.failed + counts.error;
  const rate = ran === 0 ? 0 : (counts.passed / ran) * 100;
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.error} errors${counts.skipped ? `, ${counts.skipped} skipped` : ''} (${rate.toFixed(1)}% passed)`;
}

/**
 * Loads the suite with only the built-in plugins it can name: every string in the suite (names sit in many places:
 * agent, evaluators, metrics, a route's adapters...), the --format reporters, the --agent adapter and the runner's
 * default metric and evaluator. A suite with `plugins:` loads them all. Any validation error (a case naming a
 * built-in the suite does not, or a real mistake) loads every built-in and validates again, so error messages are
 * those of a fully loaded registry.
 */
async function loadRunSuite(request: RunRequest): Promise<LoadedSuite> {
  const { loadSuite, SuiteValidationError } = await import('../../suites/loader.js');
  const { loadBuiltins, loadNamedBuiltins } = await import('../common.js');
  // A queue coordinator never calls the agent: variables only workers have may be unset here.
  const env = request.queue ? (await import('../../scale/env.js')).lenientEnv() : undefined;
  // The defaults the runner falls back to: suites/loader.ts (metrics) and runner/agent-runner.ts (FALLBACK_EVALUATOR).
  const named = ['success_rate', 'exact_match', ...request.formats];
  if (request.agentSpec) named.push(request.agentSpec.adapter);
  try {
    try {
      return await loadSuite(request.suitePath, {
        env,
        // A suite with `plugins:` loads every built-in first, as before: a plugin may replace a built-in by name.
        beforePlugins: (raw) =>
          Array.isArray(raw.plugins) && raw.plugins.length > 0
            ? loadBuiltins()
            : loadNamedBuiltins([...named, ...stringsIn(raw)]),
      });
    } catch (err) {
      if (!(err instanceof SuiteValidationError)) throw err;
      await loadBuiltins();
      return await loadSuite(request.suitePath, { env });
    }
  } catch (err) {
    if (err instanceof SuiteValidationError) throw new CliError(err.message, EXIT.usage, { cause: err });
    throw err;
  }
}

/** Every string value in a suite object (depth-first), where plugin names are looked for. */
export function stringsIn(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

/** When --agent names the suite's own adapter, keep the suite's options for it. */
function withSuiteOptions(
  spec: { adapter: string; options?: Record<string, unknown> },
  suite: LoadedSuite,
): { adapter: string; options?: Record<string, unknown> } {
  if (spec.options || spec.adapter.toLowerCase() !== suite.agent.adapter.toLowerCase()) return spec;
  return { adapter: spec.adapter, options: suite.agent.options };
}

async function refuseExistingRun(outDir: string): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  if (existsSync(join(outDir, 'journal.jsonl'))) {
    throw new CliError(`${outDir} already holds a run; use --resume ${outDir} to continue it, or another --out`);
  }
}

export type ResolvedReporter = {
  name: string;
  extension: string;
  report: (view: ExperimentView, dest?: string) => Promise<string>;
};

/** Resolve every --format name before the run starts, so a typo fails fast (exit 2). */
export async function resolveReporters(formats: string[]): Promise<ResolvedReporter[]> {
  const { reporterRegistry } = await import('../../reporters/base.js');
  const { parseOptions } = await import('../../evaluators/base.js');
  return formats.map((name) => {
    const plugin = reporterRegistry.get(name);
    const reporter = plugin.create(parseOptions(plugin, {}) as never);
    return { name: plugin.name, extension: plugin.extension, report: (v, d) => reporter.report(v, d) };
  });
}

/** Console prints to stdout; every other reporter writes `report.<ext>` into the run folder. */
export async function writeReports(
  view: ExperimentView,
  reporters: ResolvedReporter[],
  runDir: string,
  scrub: (t: string) => string,
): Promise<void> {
  const { join } = await import('node:path');
  // Every reporter gets its turn even when one before it fails; the failures are thrown together at the end,
  // each naming its reporter and file.
  const failures: string[] = [];
  let first: unknown = null;
  for (const r of reporters) {
    const dest = r.name === 'console' ? null : join(runDir, `report.${r.extension}`);
    try {
      if (dest === null) process.stdout.write(scrub(await r.report(view)));
      else await r.report(view, dest);
    } catch (err) {
      first ??= err;
      failures.push(`${r.name} report ${dest === null ? '(stdout)' : `(${dest})`}: ${scrub(errorMessage(err))}`);
    }
  }
  if (failures.length > 0) {
    throw new Error(
      `${failures.length === 1 ? 'a report' : `${failures.length} reports`} could not be written (the run is stored ` +
        `in ${runDir}; rewrite with harness export): ${failures.join('; ')}`,
      { cause: first },
    );
  }
}

function relativeToCwd(p: string): string {
  const cwd = `${process.cwd()}/`;
  return p.startsWith(cwd) ? p.slice(cwd.length) : p;
}

interface Progress {
  start(total: number, runDir: string, resumed: number): void;
  update(done: number, failures: number): void;
  stop(): void;
  note(text: string): void;
}

/** A progress bar on an interactive terminal only; silent in pipes and CI. */
async function createProgress(enabled: boolean): Promise<Progress> {
  const tty = enabled && Boolean(process.stderr.isTTY) && !process.env.CI;
  if (!tty) {
    return {
      start: () => {},
      update: () => {},
      stop: () => {},
      note: (t) => process.stderr.write(`${t}\n`),
    };
  }
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: ' {bar} {value}/{total} cases | {failures} not passed | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start(total, runDir, resumed) {
      process.stderr.write(
        `running ${total} case run${total === 1 ? '' : 's'}${resumed ? ` (${resumed} already done)` : ''} → ${relativeToCwd(runDir)}\n`,
      );
      bar.start(total, 0, { failures: 0 });
      started = true;
    },
    update(done, failures) {
      if (started) bar.update(done, { failures });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
    note(text) {
      if (started) bar.stop();
      started = false;
      process.stderr.write(`${text}\n`);
    },
  };
}

/** First Ctrl+C: stop scheduling and abort in-flight cases (a valid partial run is written). Second: exit now. */
function onSigint(controller: AbortController, progress: Progress): () => void {
  let count = 0;
  const handler = () => {
    count++;
    if (count === 1) {
      progress.note('interrupting: finishing up and writing a partial run (Ctrl+C again to quit immediately)');
      controller.abort();
    } else process.exit(130);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
