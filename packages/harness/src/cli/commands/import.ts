import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../common.js';

/**
 * `harness import promptfoo <config>`: convert a promptfoo config into a harness suite (one case per test x
 * prompt x provider, vars kept, each assertion mapped to an evaluator). Whatever has no equivalent is listed
 * with file:line:col on stderr and left out of the suite; docs/migrating.md has the mapping table.
 *
 * @example harness import promptfoo promptfooconfig.yaml --out suite.yaml
 */
export function register(program: Command): void {
  const imp = program.command('import').description('convert another tool’s config into a harness suite');
  imp
    .command('promptfoo')
    .description('convert a promptfoo config (promptfooconfig.yaml) into a harness suite')
    .argument('<config>', 'promptfoo config file (.yaml, .yml or .json)')
    .option('-o, --out <file>', 'write the suite here (default: print it)')
    .option('--force', 'overwrite --out if it exists')
    .action(async (config, opts) => {
      const { existsSync, readFileSync, writeFileSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      if (!existsSync(config)) throw new CliError(`${config}: no such file`, EXIT.usage);
      if (opts.out && existsSync(opts.out) && !opts.force) {
        throw new CliError(`${opts.out} exists; pass --force to overwrite it`, EXIT.usage);
      }
      const { convertPromptfoo, isPromptfooConfig, suiteYaml } = await import('../../suites/promptfoo.js');
      const { formatIssue } = await import('../../suites/positions.js');
      const text = readFileSync(config, 'utf8');
      const conversion = convertPromptfoo(resolve(config), text);
      const { parse } = await import('yaml');
      let raw: unknown;
      try {
        raw = parse(text);
      } catch {
        raw = null;
      }
      if (!isPromptfooConfig(raw)) {
        throw new CliError(`${config}: not a promptfoo config (expected prompts, providers and tests)`, EXIT.usage);
      }
      const yaml = await suiteYaml(conversion, config);
      if (opts.out) writeFileSync(opts.out, yaml);
      else process.stdout.write(yaml);
      const cases = Array.isArray(conversion.suite.tests) ? conversion.suite.tests.length : 0;
      process.stderr.write(
        `harness: converted ${config}: ${cases} case${cases === 1 ? '' : 's'}${opts.out ? ` written to ${opts.out}` : ''}\n`,
      );
      for (const n of conversion.notes) process.stderr.write(`  note: ${n}\n`);
      if (conversion.unmapped.length > 0) {
        process.stderr.write(`harness: ${conversion.unmapped.length} item(s) not converted (left out of the suite):\n`);
        for (const i of conversion.unmapped) process.stderr.write(`  ${formatIssue(i)}\n`);
      }
    });
}
