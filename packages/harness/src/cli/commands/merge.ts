import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../common.js';

/** Flags of `harness merge` as commander parses them. */
export interface MergeFlags {
  out: string;
  suite?: string;
  format: string;
  thresholds: boolean;
  allowPartial?: boolean;
  store?: string;
  index?: boolean;
  runsDir: string;
}

export function register(program: Command): void {
  program
    .command('merge')
    .description(
      'combine the shard runs of one suite (harness run --shard i/n) into one run: same results, metrics and reports as an unsharded run',
    )
    .argument('<runs...>', 'run folders (or their journal.jsonl) to merge')
    .requiredOption('-o, --out <dir>', 'folder for the merged run')
    .option('--suite <file>', 'take metrics, thresholds and plugins from this suite file (must be the same version)')
    .option('--format <list>', 'reporters, comma-separated (console prints; others write report.<ext>)', 'console,json')
    .option('--thresholds', "check the suite's thresholds (default)", true)
    .option('--no-thresholds', 'do not check thresholds')
    .option('--allow-partial', 'merge even if shards are missing or interrupted (the merged run is marked partial)')
    .option('--runs-dir <dir>', 'runs folder whose index the merged run is added to', 'runs')
    .option(
      '--store <url>',
      'run index to add the merged run to (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)',
    )
    .option('--no-index', 'do not add the merged run to the run index')
    .action(async (runs, flags) => {
      let scrub = (t: string) => t;
      try {
        process.exitCode = await mergeCommand(runs, flags as MergeFlags, (s) => {
          scrub = s;
        });
      } catch (err) {
        const { fail } = await import('../common.js');
        process.exitCode = fail(err, scrub);
      }
    });
}

/** `harness merge`: exit 0 ok, 1 thresholds failed, 2 runs that cannot be merged, 3 partial merge. */
export async function mergeCommand(
  runs: string[],
  flags: MergeFlags,
  setScrub: (scrub: (t: string) => string) => void = () => {},
): Promise<number> {
  const { loadBuiltins } = await import('../common.js');
  await loadBuiltins();
  const formats = flags.format
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (formats.length === 0) throw new CliError('--format needs at least one reporter name');
  const { resolveReporters, writeReports } = await import('./run.js');
  const reporters = await resolveReporters(formats);
  const { mergeRuns, MergeError } = await import('../../scale/merge.js');
  let result: Awaited<ReturnType<typeof mergeRuns>>;
  try {
    result = await mergeRuns({
      runs,
      outDir: flags.out,
      suite: flags.suite,
      allowPartial: flags.allowPartial === true,
      thresholds: flags.thresholds,
    });
  } catch (err) {
    if (err instanceof MergeError) throw new CliError(err.message, EXIT.usage, { cause: err });
    throw err;
  }
  const redactor = result.redactor;
  const scrub = redactor ? (t: string) => redactor.text(t) : (t: string) => t;
  setScrub(scrub);
  await writeReports(result.view, reporters, result.runDir, scrub);
  if (flags.index !== false) {
    const { indexAfterRun } = await import('../../store/auto-index.js');
    await indexAfterRun(result.runDir, { store: flags.store, runsDir: flags.runsDir });
  }
  process.stderr.write(`merged ${runs.length} run(s), ${result.results} case runs → ${flags.out}\n`);
  return result.exitCode;
}
