import { type Command, Option } from '@commander-js/extra-typings';
import { collect, positiveInt, runStudyCli } from '../campaign-support.js';
import { CliError, EXIT } from '../common.js';

/** `soclab campaign`: run the scenario corpus in one mode as a harness experiment, score it, write the reports. */
export function register(program: Command): void {
  program
    .command('campaign')
    .description(
      'run the scenario corpus in one mode (a harness experiment), score it and write the scorecard and reports; exit 1 if a mandatory gate fails or an attack succeeds in protected mode',
    )
    .addOption(
      new Option('--mode <mode>', 'baseline (weak controls) or protected')
        .choices(['baseline', 'protected'] as const)
        .default('protected' as const),
    )
    .option('--provider <id>', 'model provider (see: soclab providers)', 'mock')
    .option('--model <label>', "model label for a live provider (the mock uses each scenario's)")
    .addOption(
      new Option('--level <level>', 'authority level the agent is tested at')
        .choices(['L1', 'L2', 'L3', 'L4', 'L5'] as const)
        .default('L4' as const),
    )
    .option(
      '--repeats <n>',
      'runs per scenario (tightens the intervals; L5 needs at least 2)',
      positiveInt('--repeats', 100),
      1,
    )
    .option('--scenario <id>', 'run only this scenario (repeatable or comma list)', collect)
    .option('--approver <model>', 'approver simulation: none, ideal, rubber_stamp or noisy:P', 'none')
    .option(
      '--ablate <control>',
      'also run protected minus one control and attribute stopped attacks: policy, approvals, grants, redaction, labels, limits, scope, or each (repeatable)',
      collect,
    )
    .option('--concurrency <n>', 'scenario runs in flight at once', positiveInt('--concurrency', 64), 4)
    .option('--out <dir>', 'output folder: the harness run folder and the reports', 'runs/latest')
    .option(
      '--policy-dir <dir>',
      'Cedar policy folder for protected mode (default: SOCLAB_POLICY_DIR or the bundled policy)',
    )
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .action(async (opts) => {
      const { parseAblateList } = await import('../../campaign/ablation.js');
      let ablate: ReturnType<typeof parseAblateList>;
      try {
        ablate = parseAblateList(opts.ablate);
      } catch (error) {
        throw new CliError((error as Error).message, EXIT.usage);
      }
      await runStudyCli(
        {
          mode: opts.mode,
          provider: opts.provider,
          model: opts.model,
          level: opts.level,
          repeats: opts.repeats,
          scenarios: opts.scenario,
          approver: opts.approver,
          ablate,
          concurrency: opts.concurrency,
          policyDir: opts.policyDir,
          out: opts.out,
        },
        { db: opts.db },
      );
    });
}
