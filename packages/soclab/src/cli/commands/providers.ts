import { errorMessage } from '@aeh/harness/errors';
import type { Command } from '@commander-js/extra-typings';
import { collect } from '../campaign-support.js';
import { CliError, c, EXIT, printJson, table } from '../common.js';

const CAPS = [
  ['tool_calling', 'tools'],
  ['structured_output', 'json'],
  ['streaming', 'stream'],
  ['usage_reporting', 'usage'],
  ['multimodal_input', 'images'],
] as const;

/** `soclab providers`: every provider the lab can drive, what it can do, and whether it is configured now. */
export function register(program: Command): void {
  program
    .command('providers')
    .description('list the model providers with capabilities, configuration status and validation level')
    .option('--json', 'print the compatibility matrix as JSON')
    .option('--provider-module <path>', 'also list the providers this module exports (repeatable)', collect)
    .option(
      '--check <id>',
      'exit 2 unless this provider is known, approved and configured (for scripts and CI); nothing is sent unless --probe',
    )
    .option('--probe', 'with --check: send one tiny request and exit 2 unless the provider answers')
    .option('--model <label>', 'with --probe: the model to ask (default: the provider default)')
    .option('--deployment <name>', 'with --probe: the Azure OpenAI deployment, when it differs from the model')
    .action(async (opts) => {
      const { applyProviderModules } = await import('../campaign-support.js');
      await applyProviderModules({ providerModule: opts.providerModule });
      const { soclabProviderRegistry, checkProviderSelection } = await import('../../providers/registry.js');
      const registry = soclabProviderRegistry();
      if (opts.probe && opts.check === undefined) throw new CliError('--probe needs --check <id>', EXIT.usage);
      if (opts.check !== undefined) {
        let selected: ReturnType<typeof checkProviderSelection>;
        try {
          selected = checkProviderSelection(registry, opts.check, opts.model);
        } catch (error) {
          throw new CliError(errorMessage(error), EXIT.usage);
        }
        const { entry, model } = selected;
        if (!opts.probe) {
          process.stdout.write(`${entry.id}: configured (not contacted; model ${model}). To contact it: --probe\n`);
          return;
        }
        const { probeProvider } = await import('../../providers/probe.js');
        const result = await probeProvider(registry, entry.id, model, opts.deployment);
        if (!result.ok) throw new CliError(`${entry.id}: probe failed: ${result.error}`, EXIT.usage);
        process.stdout.write(
          `${entry.id}: reachable (asked for ${model}, answered as ${result.model}, ${Math.round(result.latency_ms)} ms)\n`,
        );
        return;
      }
      const matrix = registry.matrix();
      if (opts.json) {
        printJson(matrix);
        return;
      }
      // Narrow enough for a terminal: one missing variable per line, the validation level (the sentence: --json).
      const t = table(['provider', 'configured', 'capabilities', 'default model', 'adapter', 'validation']);
      for (const row of matrix) {
        const configured = row.configured
          ? c.green('yes')
          : `no: set ${row.missing_env_vars.join(',\n        ') || 'its settings'}`
              .split('\n')
              .map((line) => c.yellow(line))
              .join('\n');
        const caps = CAPS.filter(([k]) => row.capabilities[k])
          .map(([, label]) => label)
          .join(' ');
        const approved = row.approved ? '' : c.red(' (not approved)');
        t.push([
          `${row.provider_id}${approved}`,
          configured,
          caps,
          row.default_model,
          row.adapter_version,
          row.validation_level,
        ]);
      }
      process.stdout.write(`${t.toString()}\n`);
      const ready = matrix.filter((r) => r.configured && r.approved).length;
      process.stdout.write(
        `${ready} of ${matrix.length} providers ready. Environment variables and what each validation was: soclab providers --json; ` +
          'bring your own agent: docs/custom-provider.md\n',
      );
    });
}
