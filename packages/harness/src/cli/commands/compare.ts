import { type Command, Option } from '@commander-js/extra-typings';
import { makeDirectory } from '../../core/directories.js';
import { errorMessage } from '../../core/errors.js';
import { CliError, EXIT } from '../common.js';

const STORE_HELP =
  'run index for run ids: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)';

function probability(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!(n > 0 && n < 1)) throw new CliError(`${name} must be a number between 0 and 1 (got '${value}')`);
    return n;
  };
}

function nonNegativeInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a non-negative integer (got '${value}')`);
    return n;
  };
}

function list(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

/**
 * `harness compare <baseline> <candidate>`: direction-aware metric deltas, case flips and paired statistics
 * on the shared cases; with `--fail-on-regression`, exit 1 when a gated measure significantly regressed.
 */
export function register(program: Command): void {
  program
    .command('compare')
    .description(
      'compare two runs: metric deltas, newly failing/passing cases, paired tests (exact McNemar, paired bootstrap, Holm) and a regression gate',
    )
    .argument('<baseline>', 'run folder, journal (.jsonl), experiment JSON, or stored run id')
    .argument('<candidate>', 'run folder, journal (.jsonl), experiment JSON, or stored run id')
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['console', 'markdown', 'json']).default('console'),
    )
    .option('-o, --out <file>', 'write the output to a file (the console summary still goes to stdout)')
    .option(
      '--tolerance <spec>',
      "how much worse a gated measure may get: '0.02' (absolute, rate-like measures), '5%' (of baseline), or 'pass_rate=0.02,mean_latency=10%'",
    )
    .option('--alpha <p>', 'significance level, Holm-corrected across gated measures', probability('--alpha'), 0.05)
    .option('--strict', 'gate on point estimates (any worsening beyond the tolerance), ignoring significance')
    .option(
      '--gate <measures>',
      "measures that can fail the gate (comma list): pass_rate, mean_score, mean_latency, mean_cost, mean_tokens, 'score:<evaluator>', 'score:*' or 'all' (default pass_rate,mean_score)",
      list,
    )
    .option('--quarantine <ids>', 'test ids reported but never gating (comma list; adds to the suite quarantine)', list)
    .option('--seed <n>', 'seed of the bootstrap and permutation resampling', nonNegativeInt('--seed'))
    .option('--resamples <n>', 'bootstrap / permutation resamples (default 2000)', nonNegativeInt('--resamples'))
    .option(
      '--max-drop <spec>',
      "practical bound: a gated measure worse by more than this never passes (not significant: 'inconclusive', exit 4 with --fail-on-regression); same syntax as --tolerance, or 'off' (default 0.1)",
    )
    .option('--fail-on-regression', 'exit 1 when the gate fails, 4 when it is inconclusive')
    .option('--judge <provider/model>', 'also grade paired outputs with a pairwise LLM judge (both orders; win rate)')
    .option('--judge-criteria <text>', 'what "better" means for --judge (default: correctness, then helpfulness)')
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders (for run ids)', 'runs')
    .action(async (baselineRef, candidateRef, opts) => {
      const { parseTolerance, collectJournal, collectRun, compareTables, comparisonConsole, comparisonMarkdown } =
        await import('../../comparison/index.js');
      const { resolveRun, RunReferenceError } = await import('../../comparison/resolve-run.js');
      let tolerance: ReturnType<typeof parseTolerance> | undefined;
      try {
        tolerance = opts.tolerance === undefined ? undefined : parseTolerance(opts.tolerance);
      } catch (err) {
        throw new CliError(`--${errorMessage(err)}`);
      }
      let maxDrop: ReturnType<typeof parseTolerance> | false | undefined;
      try {
        maxDrop =
          opts.maxDrop === undefined ? undefined : opts.maxDrop === 'off' ? false : parseTolerance(opts.maxDrop);
      } catch (err) {
        throw new CliError(`--max-drop: ${errorMessage(err)}`);
      }
      if (opts.resamples !== undefined && opts.resamples < 100) throw new CliError('--resamples must be at least 100');
      const open = async (ref: string) => {
        try {
          return await resolveRun(ref, { store: opts.store, runsDir: opts.runsDir });
        } catch (err) {
          if (err instanceof RunReferenceError) throw new CliError(err.message, EXIT.usage, { cause: err });
          throw err;
        }
      };
      const baseline = await open(baselineRef);
      try {
        const candidate = await open(candidateRef);
        try {
          const table = (run: typeof baseline) =>
            run.journal ? collectJournal(run.journal) : run.view().then(collectRun);
          const comparison = compareTables(await table(baseline), await table(candidate), {
            alpha: opts.alpha,
            strict: opts.strict ?? false,
            tolerance,
            maxDrop,
            gate: opts.gate,
            quarantine: opts.quarantine,
            seed: opts.seed,
            resamples: opts.resamples,
          });
          const pairwise = opts.judge
            ? await pairwiseSection(opts.judge, opts.judgeCriteria, baseline, candidate)
            : null;
          const render = (format: string, toFile: boolean) =>
            format === 'json'
              ? `${JSON.stringify(pairwise ? { ...comparison, pairwise: pairwise.summary } : comparison, null, 2)}\n`
              : (format === 'markdown'
                  ? comparisonMarkdown(comparison)
                  : comparisonConsole(comparison, toFile ? { color: false } : {})) +
                (pairwise ? pairwise.render(format === 'markdown' ? 'markdown' : 'console') : '');
          if (opts.out) {
            const { writeFile } = await import('node:fs/promises');
            const { dirname, resolve } = await import('node:path');
            makeDirectory(dirname(resolve(opts.out)));
            await writeFile(opts.out, render(opts.format, true), 'utf8');
            process.stderr.write(`harness: comparison written to ${opts.out}\n`);
            process.stdout.write(render('console', false));
          } else {
            process.stdout.write(render(opts.format, false));
          }
          if (opts.failOnRegression && comparison.gate.status === 'failed') process.exitCode = EXIT.gate;
          else if (opts.failOnRegression && comparison.gate.status === 'inconclusive') {
            process.exitCode = EXIT.inconclusive;
          }
        } finally {
          await candidate.close();
        }
      } finally {
        await baseline.close();
      }
    });
}

/** `--judge`: pairwise grading of the two runs' paired outputs (comparison/pairwise-judge.ts). */
async function pairwiseSection(
  flag: string,
  criteria: string | undefined,
  baseline: { view(): Promise<import('../../core/view.js').ExperimentView> },
  candidate: { view(): Promise<import('../../core/view.js').ExperimentView> },
) {
  const { judgeRuns, parseJudgeFlag, renderPairwise } = await import('../../comparison/pairwise-judge.js');
  let spec: ReturnType<typeof parseJudgeFlag>;
  try {
    spec = parseJudgeFlag(flag);
  } catch (err) {
    throw new CliError(errorMessage(err), EXIT.usage, { cause: err });
  }
  const ctx = { baseDir: process.cwd(), env: process.env };
  const summary = await judgeRuns(await baseline.view(), await candidate.view(), spec, ctx, { criteria });
  return { summary, render: (format: 'console' | 'markdown') => renderPairwise(summary, format) };
}
