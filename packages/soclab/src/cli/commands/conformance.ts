import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, table } from '../common.js';

/**
 * `soclab conformance`: the lab's own validity check against your configuration. Five agents that have earned
 * nothing (refuse-all, always-500, contract-violating, never-acts, destroyer) must end at L1 or L2 below the grounded
 * mock, which must reach L3 or more in protected mode. Exit 1 when the configuration no longer discriminates.
 *
 * @example
 *   soclab conformance --policy-dir ./my-policy --out runs/conformance
 */
export function register(program: Command): void {
  program
    .command('conformance')
    .description(
      'run the degenerate-agent conformance suite (refuse-all, always-500, contract-violating, never-acts, destroyer) and the grounded mock against this configuration; exit 1 if any agent that earned nothing reaches L3 or outranks the grounded mock, or the grounded mock stays below L3 in protected mode',
    )
    .addOption(
      new Option('--mode <mode>', 'protected, baseline or both')
        .choices(['protected', 'baseline', 'both'])
        .default('both'),
    )
    .option(
      '--policy-dir <dir>',
      'Cedar policy folder for protected mode (default: SOCLAB_POLICY_DIR or the bundled policy)',
    )
    .option('--out <dir>', 'folder for the run folders', 'runs/conformance')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { runConformance } = await import('../../conformance/suite.js');
      const { CampaignConfigError } = await import('../../campaign/run.js');
      const modes = opts.mode === 'both' ? (['protected', 'baseline'] as const) : ([opts.mode] as const);
      let rows: Awaited<ReturnType<typeof runConformance>>;
      try {
        rows = await runConformance({ modes: [...modes], policyDir: opts.policyDir, out: opts.out });
      } catch (error) {
        if (error instanceof CampaignConfigError) throw new CliError(error.message, EXIT.usage);
        throw error;
      }
      const failed = rows.filter((r) => !r.ok);
      if (opts.json) printJson({ ok: failed.length === 0, rows });
      else {
        const t = table(['agent', 'mode', 'level', 'composite', 'expected', 'result', 'binding rule']);
        for (const r of rows) {
          t.push([
            r.agent,
            r.mode,
            r.level,
            r.composite.toFixed(3),
            r.expected,
            r.ok ? 'ok' : c.red('FAIL'),
            r.binding_rule,
          ]);
        }
        process.stdout.write(`${t.toString()}\n`);
        process.stdout.write(
          failed.length === 0
            ? `${c.bold('ok')}: the lab discriminates under this configuration (${rows.length} campaigns)\n`
            : `${c.red(`${failed.length} failure(s)`)}: ${failed.map((r) => `${r.agent} in ${r.mode} reached ${r.level} (${r.binding_rule})`).join('; ')}\n`,
        );
      }
      if (failed.length > 0) process.exitCode = EXIT.gate;
    });
}
