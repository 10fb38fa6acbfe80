import type { Command } from '@commander-js/extra-typings';
import { itemAt } from '../../core/item-at.js';
import { parsePositive, printJson } from '../store-support.js';

/** `harness history <suite> --metric success_rate`: a metric across a suite's stored runs. */
export function register(program: Command): void {
  program
    .command('history')
    .description("a metric across a suite's stored runs, as a table and a sparkline")
    .argument('<suite>', 'suite name (or a suite file)')
    .option('-m, --metric <name>', 'metric to follow', 'success_rate')
    .option('-n, --limit <n>', 'most recent runs', (v) => parsePositive(v, '--limit'), 20)
    .option('--agent <label>', 'only runs of this agent label or version')
    .option('--json', 'print JSON')
    .option(
      '--store <url>',
      'run index: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)',
    )
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (suiteArg, opts) => {
      const { withStore, table, sparkline, num, when, safeText, CliError } = await import('../store-support.js');
      const { suiteNameOf } = await import('../suite-arg.js');
      await withStore(opts, async (store) => {
        const { name: suite } = await suiteNameOf(suiteArg);
        const points = await store.metricHistory(suite, opts.metric, { limit: opts.limit, agent: opts.agent });
        if (points.length === 0) {
          const suites = await store.listSuites();
          const known = suites.find((s) => s.suite_name === suite);
          if (!known) {
            const names = suites.map((s) => s.suite_name);
            throw new CliError(
              `no stored runs of suite '${suite}'${names.length ? ` (known: ${names.join(', ')})` : ''}`,
              2,
            );
          }
          throw new CliError(
            `no run of '${suite}' has metric '${opts.metric}'${known.metrics.length ? ` (recorded: ${known.metrics.join(', ')})` : ''}`,
            2,
          );
        }
        if (opts.json) return printJson({ suite, metric: opts.metric, points });
        const t = await table(['run', 'started', 'agent', opts.metric, 'interval', 'change']);
        let prev: number | null = null;
        for (const p of points) {
          const interval = p.lower !== null && p.upper !== null ? `[${num(p.lower)}, ${num(p.upper)}]` : '-';
          const change = prev === null ? '' : `${p.value - prev >= 0 ? '+' : ''}${num(p.value - prev)}`;
          t.push([
            p.id,
            when(p.started_at),
            safeText(p.agent_label ?? p.agent_version ?? '-', 20),
            p.formatted_value,
            interval,
            change,
          ]);
          prev = p.value;
        }
        const values = points.map((p) => p.value);
        // Non-empty: no points was an error above.
        const first = itemAt(points, 0);
        const last = itemAt(points, points.length - 1);
        process.stdout.write(`${t.toString()}\n`);
        process.stdout.write(
          `${opts.metric}  ${sparkline(values)}  ${first.formatted_value} → ${last.formatted_value}  (min ${num(Math.min(...values))}, max ${num(Math.max(...values))}, ${points.length} runs, ${last.direction.replaceAll('_', ' ')})\n`,
        );
      });
    });
}
