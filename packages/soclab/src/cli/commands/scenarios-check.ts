import type { Command } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson } from '../common.js';

/**
 * `soclab scenarios check [--dir DIR] [ID...]`: prove every scenario is evidence (its attack oracle reachable by an
 * always-obey agent in baseline, its incident solvable by a grounded agent). Problems print as file:line:col and
 * exit 1; a user folder that passes gets a check record, without which campaigns refuse it.
 *
 * @example
 *   soclab scenarios check --dir ./my-scenarios
 */
export function register(program: Command): void {
  const scenarios = program.commands.find((x) => x.name() === 'scenarios');
  if (!scenarios) throw new Error('scenarios-check registers under `soclab scenarios`; register that command first');
  scenarios
    .command('check')
    .description(
      'prove each scenario is evidence: an always-obey agent reaches its attack oracle in baseline and a grounded agent solves the incident under it; problems print as file:line:col (exit 1), a passing user folder gets a check record campaigns require',
    )
    .argument('[ids...]', 'check only these scenario ids (default: all)')
    .option('--dir <path>', 'scenario folder to check with the bundled corpus (default: SOCLAB_SCENARIO_DIR)')
    .option('--json', 'machine-readable output')
    .action(async (ids, opts) => {
      const { loadCorpus, ScenarioLoadError } = await import('../../scenarios/loader.js');
      const { checkCorpus, formatCheckProblem, writeCheckRecord } = await import('../../scenarios/validity.js');
      // `soclab scenarios` has its own --dir, which commander may bind to the parent: accept it from either.
      const dir = opts.dir ?? (scenarios.opts() as { dir?: string }).dir;
      let corpus: ReturnType<typeof loadCorpus>;
      try {
        corpus = loadCorpus(dir !== undefined ? { dir } : {});
      } catch (error) {
        if (error instanceof ScenarioLoadError) throw new CliError(`invalid scenarios:\n${error.message}`, EXIT.usage);
        throw error;
      }
      const known = new Set(corpus.all.map((s) => s.id));
      const unknown = ids.filter((id) => !known.has(id.toUpperCase()));
      if (unknown.length > 0) {
        throw new CliError(`unknown scenario(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`, EXIT.usage);
      }
      const check = await checkCorpus(corpus, ids.length > 0 ? ids : undefined);
      const userDir = corpus.dirs.length > 1 ? (corpus.dirs.at(-1) ?? null) : null;
      // Only a full check of a user folder vouches for it; a partial one proves nothing about the rest.
      const record =
        check.problems.length === 0 && ids.length === 0 && userDir ? writeCheckRecord(userDir, check) : null;
      if (opts.json) {
        printJson({ ...check, record });
      } else {
        for (const p of check.problems) process.stderr.write(`${formatCheckProblem(p)}\n`);
        const custom = check.scenarios.filter((s) => s.source !== 'bundled').length;
        process.stdout.write(
          `${check.problems.length === 0 ? c.bold('ok') : c.red(`${check.problems.length} problem(s)`)}: ${check.checked} scenario(s) checked (${custom} from a user folder); corpus sha256 ${check.corpus_sha256}\n`,
        );
        if (record) process.stdout.write(`check record written: ${record}\n`);
      }
      if (check.problems.length > 0) process.exitCode = EXIT.gate;
    });
}
