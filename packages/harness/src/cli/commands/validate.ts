import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../common.js';

export function register(program: Command): void {
  program
    .command('validate')
    .description('check suites without running anything: syntax, schema, plugin names and options, case files')
    .argument('<suite...>', 'suite files (.yaml, .yml, .json)')
    .option('-q, --quiet', 'print only problems')
    .action(async (suites, opts) => {
      const { loadBuiltins } = await import('../common.js');
      await loadBuiltins();
      const { validateSuite } = await import('../../suites/loader.js');
      const { formatIssue } = await import('../../suites/positions.js');
      let bad = 0;
      for (const path of suites) {
        const { suite, issues } = await validateSuite(path);
        if (issues.length > 0 || !suite) {
          bad++;
          process.stderr.write(`✗ ${path}: ${issues.length} problem${issues.length === 1 ? '' : 's'}\n`);
          for (const issue of issues) process.stderr.write(`  ${formatIssue(issue)}\n`);
          continue;
        }
        if (!opts.quiet) {
          process.stdout.write(
            `✓ ${path}: valid — '${suite.name}', ${suite.totalCases} case${suite.totalCases === 1 ? '' : 's'}, ` +
              `adapter ${suite.agent.adapter}, ${suite.evaluators.length} suite evaluator(s), ${suite.metrics.length} metric(s)\n`,
          );
        }
      }
      process.exitCode = bad > 0 ? EXIT.usage : EXIT.ok;
    });
}
