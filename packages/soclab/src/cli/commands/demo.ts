import type { Command } from '@commander-js/extra-typings';
import { parseSeed, positiveInt, runStudyCli, SEED_HELP } from '../campaign-support.js';

/** `soclab demo`: the baseline-versus-protected comparison with the scripted mock into runs/demo. */
export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'compare baseline and protected with the scripted mock (no credentials) and write the reports to runs/demo',
    )
    .option('--out <dir>', 'output folder', 'runs/demo')
    .option(
      '--repeats <n>',
      'runs per scenario (2 shows that identical repeats add no evidence)',
      positiveInt('--repeats', 100),
      1,
    )
    .option('--concurrency <n>', 'scenario runs in flight at once', positiveInt('--concurrency', 64), 4)
    .option('--seed <n>', SEED_HELP, parseSeed)
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .action(async (opts) => {
      await runStudyCli(
        {
          compare: true,
          provider: 'mock',
          repeats: opts.repeats,
          concurrency: opts.concurrency,
          out: opts.out,
          seed: opts.seed,
        },
        { db: opts.db },
      );
    });
}
