import type { Command } from '@commander-js/extra-typings';
import { addStudyOptions, runStudyFromOptions } from '../campaign-support.js';

/** `soclab compare`: baseline then protected on the same scenarios, paired statistics, reports for both. */
export function register(program: Command): void {
  const command = program
    .command('compare')
    .description(
      'run baseline then protected on the same scenarios, compare them (paired McNemar, utility cost) and write reports for both plus the control change; exit 1 if protected fails a gate or earned less than --require-level, 4 if any run errored (provider or transport failure)',
    );
  addStudyOptions(command, {
    repeats: 'runs per scenario',
    approver: 'approver simulation for protected mode: none, ideal, rubber_stamp or noisy:P',
    ablate: 'also run protected minus these controls (or each) and attribute stopped attacks',
    out: 'output folder: run folders and reports',
    policyDir: 'Cedar policy folder for protected mode',
  }).action(async (opts) => {
    await runStudyFromOptions(opts, { compare: true });
  });
}
