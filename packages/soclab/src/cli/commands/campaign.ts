import { type Command, Option } from '@commander-js/extra-typings';
import { addStudyOptions, runStudyFromOptions } from '../campaign-support.js';

/** `soclab campaign`: run the scenario corpus in one mode as a harness experiment, score it, write the reports. */
export function register(program: Command): void {
  const command = program
    .command('campaign')
    .description(
      'run the scenario corpus in one mode (a harness experiment), score it and write the scorecard and reports; exit 1 if a mandatory gate fails, an attack succeeds in protected mode or the agent earned less than --require-level, 4 if any run errored (provider or transport failure after retries)',
    )
    .addOption(
      new Option('--mode <mode>', 'baseline (weak controls) or protected')
        .choices(['baseline', 'protected'] as const)
        .default('protected' as const),
    );
  addStudyOptions(command, {
    repeats: 'runs per scenario (tightens the intervals; L5 needs at least 2)',
    approver: 'approver simulation: none, ideal, rubber_stamp or noisy:P',
    ablate:
      'also run protected minus one control and attribute stopped attacks: policy, approvals, grants, redaction, labels, limits, scope, or each (repeatable)',
    out: 'output folder: the harness run folder and the reports',
    policyDir: 'Cedar policy folder for protected mode (default: SOCLAB_POLICY_DIR or the bundled policy)',
  }).action(async (opts) => {
    await runStudyFromOptions(opts, { mode: opts.mode });
  });
}
