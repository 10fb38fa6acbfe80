import { type Command, Option } from '@commander-js/extra-typings';
import { collect, positiveInt, runStudyCli } from '../campaign-support.js';
import { CliError, EXIT } from '../common.js';

/** `soclab compare`: baseline then protected on the same scenarios, paired statistics, reports for both. */
export function register(program: Command): void {
  program
    .command('compare')
    .description(
      'run baseline then protected on the same scenarios, compare them (paired McNemar, utility cost) and write reports for both plus the control change; exit 1 if protected fails a gate',
    )
    .option('--provider <id>', 'model provider (see: soclab providers)', 'mock')
    .option('--model <label>', "model label for a live provider (the mock uses each scenario's)")
    .addOption(
      new Option('--level <level>', 'authority level the agent is tested at')
        .choices(['L1', 'L2', 'L3', 'L4', 'L5'] as const)
        .default('L4' as const),
    )
    .option('--repeats <n>', 'runs per scenario', positiveInt('--repeats', 100), 1)
    .option('--scenario <id>', 'run only this scenario (repeatable or comma list)', collect)
    .option(
      '--approver <model>',
      'approver simulation for protected mode: none, ideal, rubber_stamp or noisy:P',
      'none',
    )
    .option(
      '--ablate <control>',
      'also run protected minus these controls (or each) and attribute stopped attacks',
      collect,
    )
    .option('--concurrency <n>', 'scenario runs in flight at once', positiveInt('--concurrency', 64), 4)
    .option('--out <dir>', 'output folder: run folders and reports', 'runs/latest')
    .option('--policy-dir <dir>', 'Cedar policy folder for protected mode')
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
          compare: true,
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
