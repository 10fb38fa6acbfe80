import type { Command } from '@commander-js/extra-typings';
import { errorMessage } from '../../core/errors.js';
import { closest } from '../../plugins/registry.js';
import { CliError, collect } from '../common.js';

const CATEGORIES = ['evaluators', 'metrics', 'adapters', 'reporters'] as const;
type Category = (typeof CATEGORIES)[number];

/** Match `eval`, `evaluator`, `Metrics`... to a category; undefined for "all"; throws on unknown words. */
export function resolveCategory(word: string | undefined): Category | undefined {
  if (!word || word.toLowerCase() === 'all') return undefined;
  const w = word.toLowerCase();
  const hit = CATEGORIES.find((c) => c.startsWith(w) || `${w}s` === c);
  if (!hit) {
    const near = closest(w, [...CATEGORIES, 'all']);
    throw new CliError(
      `unknown plugin category '${word}'${near ? `; did you mean '${near}'?` : ''} (use one of: ${CATEGORIES.join(', ')}, all)`,
    );
  }
  return hit;
}

export function register(program: Command): void {
  program
    .command('list-plugins')
    .description('list registered evaluators, metrics, adapters and reporters with one-line descriptions')
    .argument('[category]', `one of ${CATEGORIES.join(', ')} (default: all)`)
    .option('--json', 'print as JSON')
    // One module per flag (repeatable), not variadic: a variadic flag swallowed the category after it.
    .option('--plugin <module>', 'also load this plugin module (path or package name; repeatable)', collect)
    .action(async (categoryWord, opts) => {
      const category = resolveCategory(categoryWord);
      const { loadBuiltins } = await import('../common.js');
      await loadBuiltins();
      if (opts.plugin) {
        const { importModule } = await import('../../plugins/import.js');
        for (const p of opts.plugin) {
          try {
            await importModule(p, process.cwd());
          } catch (err) {
            throw new CliError(`cannot load plugin '${p}': ${errorMessage(err)}`);
          }
        }
      }
      const [{ evaluatorRegistry }, { metricRegistry }, { adapterRegistry }, { reporterRegistry }] = await Promise.all([
        import('../../evaluators/base.js'),
        import('../../metrics/base.js'),
        import('../../adapters/base.js'),
        import('../../reporters/base.js'),
      ]);
      const registries = {
        evaluators: evaluatorRegistry,
        metrics: metricRegistry,
        adapters: adapterRegistry,
        reporters: reporterRegistry,
      } as const;
      const selected = category ? [category] : [...CATEGORIES];
      if (opts.json) {
        const out = Object.fromEntries(
          selected.map((c) => [
            c,
            registries[c].list().map((p) => ({
              name: p.name,
              description: p.description,
              ...(p.example ? { example: p.example } : {}),
            })),
          ]),
        );
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      const lines: string[] = [];
      for (const c of selected) {
        const plugins = registries[c].list();
        lines.push(`${c} (${plugins.length})`);
        const width = Math.max(0, ...plugins.map((p) => p.name.length));
        for (const p of plugins) {
          lines.push(`  ${p.name.padEnd(width)}  ${p.description}`);
          // A plugin with required options shows a valid set, so the listing is enough to write a suite entry.
          if (p.example) lines.push(`  ${' '.repeat(width)}  e.g. options: ${JSON.stringify(p.example)}`);
        }
        lines.push('');
      }
      process.stdout.write(lines.join('\n'));
    });
}
