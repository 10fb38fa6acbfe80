/**
 * What `soclab campaign`, `compare` and `demo` share: option parsing, progress on a terminal, the console summary
 * and the exit code. Heavy modules are imported only when a command runs.
 */
import { join, relative } from 'node:path';
import { errorMessage } from '@aeh/harness/errors';
import { type Command, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import type { StudyRequest, StudyResult } from '../campaign/study.js';
import { CliError, c, EXIT, safeText } from './common.js';

/** Authority levels, lowest first (the order of scoring/profile.ts, without loading the scoring modules). */
const LEVELS = ['L1', 'L2', 'L3', 'L4', 'L5'] as const;

export function positiveInt(name: string, max = 1000) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max} (got '${value}')`);
    }
    return n;
  };
}

/** Help for `--seed` (campaign, compare, demo): what the reproducible mode makes byte-identical. */
export const SEED_HELP =
  'reproducible mode: ids, times (from SOURCE_DATE_EPOCH) and grant keys derive from this seed and latency is left out, so with SOURCE_DATE_EPOCH set the scorecard, HTML reports and summary are byte-identical across runs and machines (a seeded grant key is no secret: for measurements only)';

/** `--seed N`: an integer from 0 to 2^31-1, or exit 2 naming the option. */
export function parseSeed(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n > 2 ** 31 - 1) {
    throw new InvalidArgumentError(`--seed must be an integer from 0 to ${2 ** 31 - 1} (got '${value}')`);
  }
  return n;
}

export const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

/** `--price IN/OUT`, or exit 2 naming the option. */
function parsePriceOption(text: string): { input_per_million: number; output_per_million: number } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m)
    throw new CliError(`--price must be IN/OUT in USD per million tokens, e.g. 0.15/0.60 (got '${text}')`, EXIT.usage);
  return { input_per_million: Number(m[1]), output_per_million: Number(m[2]) };
}

/** Help texts that differ between `soclab campaign` and `soclab compare`. */
export interface StudyOptionHelp {
  repeats: string;
  approver: string;
  ablate: string;
  out: string;
  policyDir: string;
}

/**
 * The options `soclab campaign` and `soclab compare` share, in help order. (The options are added on an untyped
 * view of the command: inferring commander's typed chain over generic option values is very slow to typecheck.)
 */
export function addStudyOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
  help: StudyOptionHelp,
): Command<Args, Opts & StudyOptionValues> {
  (command as unknown as Command)
    .option('--provider <id>', 'model provider (see: soclab providers)', 'mock')
    .option(
      '--provider-module <path>',
      'load third-party providers (exported ProviderEntry objects) from this module; repeatable',
      collect,
    )
    .option('--model <label>', "model label for a live provider (the mock uses each scenario's)")
    .option('--deployment <name>', 'Azure OpenAI deployment name when it differs from --model (default: the model)')
    .option(
      '--price <in/out>',
      'price of a model the price table lacks, USD per million input/output tokens (e.g. 0.15/0.60)',
    )
    .option('--allow-unpriced', 'run protected mode with an unpriced model anyway (its spend limit cannot trip)')
    .addOption(
      new Option('--level <level>', 'authority level the agent is tested at').choices(LEVELS).default('L4' as const),
    )
    .addOption(
      new Option(
        '--require-level <level>',
        'exit 1 unless the recommended authority reaches this level (a CI gate on earned authority; an agent that does nothing, errors or attempts harm stays at L1)',
      ).choices(LEVELS),
    )
    .option('--repeats <n>', help.repeats, positiveInt('--repeats', 100), 1)
    .option('--scenario <id>', 'run only this scenario (repeatable or comma list)', collect)
    .option('--approver <model>', help.approver, 'none')
    .option('--ablate <control>', help.ablate, collect)
    .option('--concurrency <n>', 'scenario runs in flight at once', positiveInt('--concurrency', 64), 4)
    .option('--seed <n>', SEED_HELP, parseSeed)
    .option('--out <dir>', help.out, 'runs/latest')
    .option('--policy-dir <dir>', help.policyDir)
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .option(
      '--queue <redis-url>',
      'run the scenario runs on soclab worker processes through this Redis (default SOCLAB_QUEUE_URL; see docs/soclab/operations.md)',
    )
    .option('--otel', 'export OpenTelemetry traces over OTLP/HTTP (on when OTEL_EXPORTER_OTLP_ENDPOINT is set)')
    .option(
      '--incident <name>',
      'incident to run (file under incidents/; default SOCLAB_INCIDENT or identity-compromise)',
    )
    .option(
      '--transform <chains>',
      'also run every payload attack through these transform chains, each variant its own case (e.g. base64,wrap-system+hex; default SOCLAB_TRANSFORMS)',
    )
    .option('--agent-command <command>', 'with --provider mcp: the MCP agent to launch for each scenario run')
    .addOption(
      new Option('--agent-transport <transport>', 'with --provider mcp: how the agent reaches the lab').choices([
        'http',
        'stdio',
      ] as const),
    );
  return command as unknown as Command<Args, Opts & StudyOptionValues>;
}

/** The parsed values of `addStudyOptions`. */
export interface StudyOptionValues {
  provider: string;
  providerModule?: string[];
  model?: string;
  deployment?: string;
  price?: string;
  allowUnpriced?: boolean;
  level: (typeof LEVELS)[number];
  requireLevel?: (typeof LEVELS)[number];
  repeats: number;
  scenario?: string[];
  approver: string;
  ablate?: string[];
  concurrency: number;
  seed?: number;
  out: string;
  policyDir?: string;
  db?: string;
  queue?: string;
  agentCommand?: string;
  agentTransport?: 'http' | 'stdio';
  otel?: boolean;
  incident?: string;
  transform?: string;
}

/** Run the study the shared options describe (plus `extra`: the mode or `compare`); a bad `--ablate` exits 2. */
export async function runStudyFromOptions(
  opts: StudyOptionValues,
  extra: Pick<StudyRequest, 'mode' | 'compare'>,
): Promise<StudyResult> {
  const { parseAblateList } = await import('../modes/ablation-modes.js');
  let ablate: ReturnType<typeof parseAblateList>;
  try {
    ablate = parseAblateList(opts.ablate);
  } catch (error) {
    throw new CliError(errorMessage(error), EXIT.usage);
  }
  applyMcpAgentOptions(opts);
  await applyProviderModules(opts);
  const incidents = (opts.incident ?? '')
    .split(',')
    .map((i) => i.trim())
    .filter(Boolean);
  if (incidents.length > 1) return runIncidentStudies(opts, extra, incidents);
  await applyCorpusOptions(opts);
  return runStudyCli(
    {
      ...extra,
      provider: opts.provider,
      model: opts.model,
      deployment: opts.deployment,
      price: opts.price === undefined ? undefined : parsePriceOption(opts.price),
      allowUnpriced: opts.allowUnpriced === true,
      level: opts.level,
      repeats: opts.repeats,
      scenarios: opts.scenario,
      approver: opts.approver,
      ablate,
      concurrency: opts.concurrency,
      seed: opts.seed,
      policyDir: opts.policyDir,
      out: opts.out,
    },
    {
      db: opts.db,
      otel: opts.otel,
      queue: opts.queue ?? (process.env.SOCLAB_QUEUE_URL || undefined),
      requireLevel: opts.requireLevel,
    },
  );
}

/**
 * `--incident a,b`: one study per incident in `<out>/<incident>/`, then the per-incident breakdown. Every incident
 * name is checked before the first one runs.
 */
async function runIncidentStudies(
  opts: StudyOptionValues,
  extra: Pick<StudyRequest, 'mode' | 'compare'>,
  incidents: readonly string[],
): Promise<StudyResult> {
  if (new Set(incidents).size !== incidents.length)
    throw new CliError('--incident lists an incident twice', EXIT.usage);
  for (const incident of incidents) await applyCorpusOptions({ ...opts, incident });
  const { incidentRow, writeIncidentBreakdown } = await import('./incident-breakdown.js');
  const rows = [];
  let last: StudyResult | null = null;
  for (const incident of incidents) {
    await applyCorpusOptions({ ...opts, incident });
    const out = join(opts.out, incident);
    process.stdout.write(`\n${c.bold(`incident ${incident}`)}\n`);
    last = await runStudyFromOptions({ ...opts, incident, out }, extra);
    rows.push(incidentRow(incident, out, last.scorecards.main));
  }
  process.stdout.write(`\n${writeIncidentBreakdown(opts.out, rows).join('\n')}\n`);
  if (!last) throw new CliError('--incident names no incident', EXIT.usage);
  return last;
}

/**
 * `--incident` and `--transform` choose the corpus the way SOCLAB_INCIDENT and SOCLAB_TRANSFORMS do (the campaign
 * loads the corpus itself); bad values exit 2 here, naming the flag.
 */
async function applyCorpusOptions(opts: StudyOptionValues): Promise<void> {
  if (opts.incident !== undefined) {
    if (!/^[a-z][a-z0-9_-]{0,63}$/.test(opts.incident)) {
      throw new CliError(
        `--incident must be a lowercase name of a file under incidents/, got '${opts.incident}'`,
        EXIT.usage,
      );
    }
    process.env.SOCLAB_INCIDENT = opts.incident;
  }
  if (opts.transform !== undefined) {
    const { parseTransformChains } = await import('../scenarios/variants.js');
    const { getTransform, transformNames } = await import('../scenarios/transforms/index.js');
    const chains = parseTransformChains(opts.transform);
    const unknown = chains.flat().filter((t) => !getTransform(t));
    if (chains.length === 0 || unknown.length > 0) {
      throw new CliError(
        `--transform: ${chains.length === 0 ? 'no chain given' : `unknown transform '${unknown[0]}'`}; known: ${transformNames().join(', ')}`,
        EXIT.usage,
      );
    }
    process.env.SOCLAB_TRANSFORMS = opts.transform;
  }
}

/**
 * `--agent-command` / `--agent-transport` configure the `mcp` provider the way its environment variables do (this
 * process only runs the one study), so the registry's configuration check and the campaign see them.
 */
/** `--provider-module`: load third-party providers before the provider is chosen; a bad module exits 2. */
export async function applyProviderModules(opts: Pick<StudyOptionValues, 'providerModule' | 'queue'>): Promise<void> {
  if (!opts.providerModule?.length) return;
  // Queue workers are other processes that never load the module, so the provider could not run there.
  if (opts.queue || process.env.SOCLAB_QUEUE_URL) {
    throw new CliError(
      '--provider-module runs campaigns in this process; it cannot be combined with --queue',
      EXIT.usage,
    );
  }
  const [{ loadProviderModules, ProviderModuleError }, { builtinProviderIds }] = await Promise.all([
    import('../providers/modules.js'),
    import('../providers/registry.js'),
  ]);
  try {
    await loadProviderModules(opts.providerModule, { reserved: builtinProviderIds() });
  } catch (error) {
    if (error instanceof ProviderModuleError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

function applyMcpAgentOptions(opts: StudyOptionValues): void {
  if (opts.agentCommand === undefined && opts.agentTransport === undefined) return;
  if (opts.provider !== 'mcp') {
    throw new CliError('--agent-command and --agent-transport apply to --provider mcp', EXIT.usage);
  }
  if (opts.agentCommand !== undefined) {
    if (opts.agentCommand.trim() === '') throw new CliError('--agent-command must not be empty', EXIT.usage);
    process.env.SOCLAB_MCP_AGENT_COMMAND = opts.agentCommand;
  }
  if (opts.agentTransport !== undefined) process.env.SOCLAB_MCP_AGENT_TRANSPORT = opts.agentTransport;
}

/**
 * React's development build (the default when NODE_ENV is unset) is several times slower at server rendering and
 * adds nothing to a report. Called before the report modules are first loaded.
 */
export function preferProductionReact(): void {
  process.env.NODE_ENV ??= 'production';
}

export interface StudyCliOptions {
  db?: string;
  /** `--otel`: trace even without OTEL_EXPORTER_OTLP_ENDPOINT (docs/observability.md). */
  otel?: boolean;
  quiet?: boolean;
  /** `--queue`: Redis URL of the `soclab worker` processes that run the scenario runs. */
  queue?: string;
  /** `--require-level`: exit 1 unless the main campaign's recommended authority reaches this level. */
  requireLevel?: (typeof LEVELS)[number];
}

/** Run a study with progress on stderr (terminal only), print the summary lines and report paths, set the exit code. */
export async function runStudyCli(request: StudyRequest, options: StudyCliOptions = {}): Promise<StudyResult> {
  preferProductionReact();
  const { runStudy } = await import('../campaign/study.js');
  const { CampaignConfigError } = await import('../campaign/run.js');
  const { ProfileMismatchError } = await import('../scoring/profile.js');
  const { summaryLine } = await import('../reports/text.js');
  const { StudyProgress } = await import('./progress.js');
  const progress = new StudyProgress(process.stderr, {
    tty: Boolean(process.stderr.isTTY) && !process.env.CI,
    quiet: options.quiet,
  });
  let last = { done: 0, errors: 0 };
  let result: StudyResult;
  const { startSoclabTelemetry } = await import('../telemetry/session.js');
  const telemetry = await startSoclabTelemetry(options.otel);
  try {
    result = await runStudy(request, {
      evidenceUrl: options.db,
      queue: options.queue,
      onCampaignStart: ({ label, total }) => {
        last = { done: 0, errors: 0 };
        progress.start(label, total);
      },
      onProgress: (_label, p) => {
        last = { done: p.done, errors: p.errors };
        progress.update(p.done, p.errors);
      },
      onCampaignEnd: () => progress.end(last.done, last.errors),
    });
  } catch (error) {
    if (error instanceof CampaignConfigError) throw new CliError(error.message, EXIT.usage);
    if (error instanceof ProfileMismatchError) throw new CliError(error.message, EXIT.usage);
    throw error;
  } finally {
    await telemetry?.shutdown().catch((err: unknown) => {
      process.stderr.write(`warning: could not export traces: ${safeText(String(err))}\n`);
    });
  }
  const out = (line = '') => process.stdout.write(`${safeText(line)}\n`);
  const rel = (p: string) => relative(process.cwd(), p) || '.';
  const width = Math.max(9, ...result.ablations.map((a) => `protected-without-${a.control}`.length));
  const errored = erroredRuns(result);
  // First line, so a campaign whose runs failed can never be read as a clean pass.
  if (errored.count > 0) {
    out(
      c.red(
        `ERRORED: ${errored.count} of ${errored.total} runs ended in a provider or transport error (not resisted, not solved)${errored.first ? `: ${errored.first}` : ''}`,
      ),
    );
  }
  if (result.scorecards.baseline) out(summaryLine(result.scorecards.baseline, width));
  out(summaryLine(result.scorecards.main, width));
  for (const a of result.ablations) {
    if (!a.run) out(`${`protected-without-${a.control}`.padEnd(width)}: not measured (${a.note ?? ''})`);
    else out(summaryLine(a.run.scorecard, width));
  }
  const main = result.scorecards.main.assessment;
  if (result.paired) {
    const p = result.paired;
    out(
      `paired   : ${p.stopped} of ${p.attack_pairs} attacks stopped by the controls, ${p.introduced} introduced${p.inconclusive_scenarios?.length ? `, ${p.inconclusive_scenarios.length} inconclusive (a run errored or failed: ${p.inconclusive_scenarios.join(', ')})` : ''}; exact McNemar p = ${p.mcnemar_p < 0.0001 ? p.mcnemar_p.toExponential(2) : p.mcnemar_p.toFixed(4)}`,
    );
  }
  if (result.ablation) {
    for (const x of result.ablation.controls.filter((x) => x.measured)) {
      out(
        `  without ${x.control}: ${x.attributed.length === 0 ? 'no stopped attack succeeds' : `${x.attributed.join(', ')} succeed`}`,
      );
    }
  }
  const skipped = result.main.info.skipped.filter((s) => !s.reason.startsWith('not selected'));
  if (skipped.length > 0) {
    out(
      `skipped  : ${skipped.length} scenario(s) need the scripted mock: ${skipped.map((s) => s.scenario_id).join(', ')}`,
    );
  }
  out();
  out(`${c.bold('Reports')} (${rel(result.out)})`);
  for (const written of [result.reports.main, result.reports.baseline]) {
    if (!written) continue;
    out(`  ${rel(written.executive)}  ${rel(written.technical)}  ${rel(written.scorecard)}  ${rel(written.summary)}`);
  }
  out(`  one-page PDF: npx soclab report ${rel(result.reports.main.scorecard)}`);
  out(`${c.bold('Harness runs')}`);
  const runs = [result.baseline, result.main, ...result.ablations.map((a) => a.run)].filter((r) => r !== null);
  for (const r of runs) out(`  ${r.info.label.padEnd(width)} ${rel(r.runDir)}`);
  if (result.baseline)
    out(`  compare them: npx harness compare ${rel(result.baseline.runDir)} ${rel(result.main.runDir)}`);
  out(`  browse them : npx harness view ${runs.map((r) => rel(r.runDir)).join(' ')}`);
  if (main.gate_failures.length > 0 || main.critical_failures.length > 0) process.exitCode = EXIT.gate;
  // The earned level, not the absence of failures: a refusing agent fails no gate, errors nothing and exits 0
  // without this, yet has earned nothing.
  const required = options.requireLevel;
  if (required && LEVELS.indexOf(main.authority.level) < LEVELS.indexOf(required)) {
    out(
      c.red(
        `REQUIRED LEVEL NOT EARNED: ${main.authority.level} < ${required} (held by ${main.authority.binding_rule}: ${main.authority.binding_detail})`,
      ),
    );
    process.exitCode = EXIT.gate;
  }
  if (errored.count > 0) process.exitCode = EXIT.errored;
  return result;
}

/** Runs that ended `errored` (or that the harness could not run at all), over every campaign of the study. */
export function erroredRuns(result: StudyResult): { count: number; total: number; first: string | null } {
  const runs = [result.baseline, result.main, ...result.ablations.map((a) => a.run)].filter((r) => r !== null);
  let count = 0;
  let total = 0;
  let first: string | null = null;
  for (const run of runs) {
    for (const r of run.records) {
      total++;
      if (r.investigation.status !== 'errored') continue;
      count++;
      first ??= r.investigation.failure_reason;
    }
    for (const e of run.info.errors) {
      total++;
      count++;
      first ??= e.error;
    }
  }
  return { count, total, first: first === null ? null : first.slice(0, 300) };
}
