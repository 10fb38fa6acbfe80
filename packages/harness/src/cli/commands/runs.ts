import type { Command } from '@commander-js/extra-typings';
import { parsePositive, printJson } from '../store-support.js';

const STORE_HELP =
  'run index: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)';

/** `harness runs list|show|rm`: stored runs from the run index. */
export function register(program: Command): void {
  const runs = program.command('runs').description('list, show and remove stored runs');

  runs
    .command('list')
    .alias('ls')
    .description('list stored runs, newest first, with their metrics')
    .option('--suite <name>', 'only runs of this suite')
    .option('--state <state>', 'only runs in this state (running, completed, failed, cancelled)')
    .option('-n, --limit <n>', 'how many runs', (v) => parsePositive(v, '--limit'), 20)
    .option('--json', 'print JSON')
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (opts) => {
      const { withStore, table, pct, num, seconds, when, safeText, stateLabel } = await import('../store-support.js');
      await withStore(opts, async (store) => {
        const page = await store.listRuns({ suite: opts.suite, state: opts.state, limit: opts.limit });
        if (opts.json) return printJson(page);
        if (page.items.length === 0) {
          process.stdout.write(
            `no stored runs${opts.suite ? ` for suite '${opts.suite}'` : ''} (index: ${store.target.display})\n`,
          );
          return;
        }
        const t = await table([
          'id',
          'started',
          'suite',
          'agent',
          'state',
          'cases',
          'pass rate',
          'score',
          'call time (sum)',
          'metrics',
        ]);
        for (const r of page.items) {
          const metrics = Object.values(r.metrics)
            .slice(0, 3)
            .map((m) => `${m.name}=${m.formatted_value}`)
            .join(' ');
          t.push([
            r.id,
            when(r.started_at),
            safeText(r.suite_name, 30),
            safeText(r.agent_label ?? r.agent_version ?? r.agent_adapter, 20),
            stateLabel(r),
            String(r.total),
            pct(r.pass_rate),
            num(r.mean_score),
            seconds(r.total_duration),
            safeText(metrics, 50),
          ]);
        }
        process.stdout.write(`${t.toString()}\n`);
        if (page.total > page.items.length)
          process.stdout.write(`${page.items.length} of ${page.total} runs shown (--limit)\n`);
      });
    });

  runs
    .command('show')
    .description('show one run: metrics with intervals, counts, evaluators, failing cases')
    .argument('<run>', 'run id (or unique prefix), run folder or folder name')
    .option('--json', 'print JSON')
    .option('--failures <n>', 'failing cases to list', (v) => parsePositive(v, '--failures'), 10)
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (ref, opts) => {
      const { withStore, table, pct, num, seconds, when, safeText, stateLabel } = await import('../store-support.js');
      await withStore(opts, async (store) => {
        const run = await store.getRun(ref);
        const failures = await store.listCases(run.id, { status: ['failed', 'error'], limit: opts.failures });
        if (opts.json) return printJson({ ...run, failures });
        const out: string[] = [];
        out.push(`${run.id}  ${safeText(run.name, 80)}`);
        out.push(`  suite    ${safeText(run.suite_name)} v${safeText(run.suite_version, 20)}`);
        out.push(
          `  agent    ${safeText([run.agent_adapter, run.agent_label, run.agent_version].filter(Boolean).join(' / '))}`,
        );
        out.push(`  state    ${stateLabel(run)}   started ${when(run.started_at)}   finished ${when(run.finished_at)}`);
        out.push(
          `  cases    ${run.total} (passed ${run.passed}, failed ${run.failed}, errors ${run.errored}, skipped ${run.skipped})  pass rate ${pct(run.pass_rate)}  mean score ${num(run.mean_score)}`,
        );
        out.push(
          `  time     ${seconds(run.total_duration)} call time (sum over cases)${run.total_cost !== null ? `   cost $${run.total_cost.toFixed(4)}` : ''}`,
        );
        if (run.thresholds_passed !== null)
          out.push(`  gate     thresholds ${run.thresholds_passed ? 'met' : 'FAILED'}`);
        if (run.location) out.push(`  files    ${run.location}`);
        process.stdout.write(`${out.join('\n')}\n`);
        const metrics = Object.values(run.metrics);
        if (metrics.length > 0) {
          const t = await table(['metric', 'value', 'interval', 'n', 'direction']);
          for (const m of metrics) {
            const interval = m.lower !== null && m.upper !== null ? `[${num(m.lower)}, ${num(m.upper)}]` : '-';
            t.push([
              m.name,
              m.formatted_value,
              interval,
              m.sample_size === null ? '-' : String(m.sample_size),
              m.direction,
            ]);
          }
          process.stdout.write(`${t.toString()}\n`);
        }
        if (run.evaluators.length > 0) {
          const t = await table(['evaluator', 'cases', 'passed', 'errors', 'mean score']);
          for (const e of run.evaluators) {
            t.push([
              e.evaluator,
              String(e.cases),
              `${e.passed} (${pct(e.passed / e.cases)})`,
              String(e.errors),
              num(e.mean_score),
            ]);
          }
          process.stdout.write(`${t.toString()}\n`);
        }
        if (failures.total > 0) {
          process.stdout.write(`failing cases (${failures.items.length} of ${failures.total}):\n`);
          for (const c of failures.items) {
            const why =
              c.error ??
              c.evaluations
                .filter((e) => !e.passed)
                .map((e) => e.evaluator)
                .join(', ');
            process.stdout.write(
              `  ${c.status.padEnd(6)} ${safeText(c.test_id, 40)}#${c.repeat}  ${safeText(why, 70)}\n`,
            );
          }
        }
      });
    });

  runs
    .command('rm')
    .description('remove runs from the index and delete their run folders')
    .argument('<runs...>', 'run ids (or unique prefixes), run folders or folder names')
    .option('--keep-files', 'only remove from the index; leave the run folders on disk')
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (refs, opts) => {
      const { withStore, CliError } = await import('../store-support.js');
      const { rm } = await import('node:fs/promises');
      const { resolve, sep } = await import('node:path');
      const root = resolve(opts.runsDir);
      // Files are deleted only inside the runs folder, so a store entry can never point rm elsewhere.
      await withStore({ ...opts, sync: false }, async (store) => {
        const ids: string[] = [];
        for (const ref of refs) ids.push(await store.resolveRunId(ref));
        for (const id of ids) {
          const removed = await store.removeRun(id);
          let note = 'removed from the index';
          if (!opts.keepFiles && removed.location) {
            if (removed.location.startsWith(root + sep)) {
              await rm(removed.location, { recursive: true, force: true });
              note += `, deleted ${removed.location}`;
            } else {
              note += `; kept ${removed.location} (outside ${root})`;
            }
          }
          process.stdout.write(`${id}: ${note}\n`);
        }
        if (ids.length === 0) throw new CliError('no runs given', 2);
      });
    });
}
