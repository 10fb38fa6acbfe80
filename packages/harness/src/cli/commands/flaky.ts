import type { Command } from '@commander-js/extra-typings';
import { parsePositive, printJson } from '../store-support.js';

/** `harness flaky <suite>`: cases whose pass/fail outcome is unstable across stored runs. */
export function register(program: Command): void {
  program
    .command('flaky')
    .description("cases whose outcome flips across a suite's stored runs (flip rate, pass history, quarantine)")
    .argument('<suite>', 'suite name, or the suite file (its quarantine list is read)')
    .option('-w, --window <n>', 'most recent runs to look at', (v) => parsePositive(v, '--window'), 20)
    .option('--min-runs <n>', 'runs a case needs before it is judged', (v) => parsePositive(v, '--min-runs'), 3)
    .option('--agent <label>', 'only runs of this agent label or version')
    .option('--fail-on-flaky', 'exit 1 when a flaky case is not quarantined')
    .option('--json', 'print JSON')
    .option(
      '--store <url>',
      'run index: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)',
    )
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (suiteArg, opts) => {
      const { withStore, table, pct, safeText, CliError } = await import('../store-support.js');
      const { suiteNameOf } = await import('../suite-arg.js');
      const { quarantineOfLatest } = await import('../../store/suite-ref.js');
      await withStore(opts, async (store) => {
        const ref = await suiteNameOf(suiteArg);
        const quarantine = ref.quarantine ?? (await quarantineOfLatest(store, ref.name));
        const report = await store.flakyCases(ref.name, {
          window: opts.window,
          minRuns: opts.minRuns,
          agent: opts.agent,
          quarantine,
        });
        if (report.runs_considered === 0) {
          const names = (await store.listSuites()).map((s) => s.suite_name);
          throw new CliError(
            `no stored runs of suite '${ref.name}'${names.length ? ` (known: ${names.join(', ')})` : ''}`,
            2,
          );
        }
        if (opts.json) printJson(report);
        else if (report.flaky.length === 0) {
          process.stdout.write(
            `no flaky cases in '${ref.name}': ${report.cases_considered} cases over ${report.runs_considered} runs (a case needs ${opts.minRuns} runs)\n`,
          );
        } else {
          const t = await table(['case', 'runs', 'pass rate', 'flips', 'flip rate', 'history (old → new)', '']);
          const glyph = { pass: '✓', fail: '✗', mixed: '±' } as const;
          for (const f of report.flaky) {
            t.push([
              safeText(f.test_id, 40),
              String(f.runs),
              `${pct(f.pass_rate, 0)} (${f.passes}/${f.executions})`,
              String(f.flips),
              pct(f.flip_rate, 0),
              f.history.map((h) => glyph[h.outcome]).join(''),
              f.quarantined ? 'quarantined' : '',
            ]);
          }
          process.stdout.write(`${t.toString()}\n`);
          const q = report.flaky.filter((f) => f.quarantined).length;
          process.stdout.write(
            `${report.flaky.length} flaky of ${report.cases_considered} cases over the last ${report.runs_considered} runs of '${ref.name}'${q ? `; ${q} quarantined` : ''}. ± = repeats disagreed within a run.\n`,
          );
        }
        if (opts.failOnFlaky && report.flaky.some((f) => !f.quarantined)) process.exitCode = 1;
      });
    });
}
