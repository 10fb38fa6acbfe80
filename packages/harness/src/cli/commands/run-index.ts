import type { Command } from '@commander-js/extra-typings';
import { printJson } from '../store-support.js';

const STORE_HELP =
  'run index: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)';

/** `harness index rebuild|add`: maintain the run index derived from run folders. */
export function register(program: Command): void {
  const index = program.command('index').description('maintain the run index (rebuilt from run folders at any time)');

  index
    .command('rebuild')
    .description('drop the index entries of the runs folder and re-read every run folder in it')
    .option('--all', 'drop every entry first, including runs indexed from other folders')
    .option('--json', 'print JSON')
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (opts) => {
      const { withStore } = await import('../store-support.js');
      await withStore({ ...opts, sync: false }, async (store) => {
        const out = await store.rebuildIndex(opts.runsDir, { all: opts.all });
        if (opts.json) printJson(out);
        else {
          const results = out.indexed.reduce((s, r) => s + r.results, 0);
          const malformed = out.indexed.reduce((s, r) => s + r.malformed, 0);
          process.stdout.write(
            `indexed ${out.indexed.length} runs (${results} results) from ${opts.runsDir} into ${store.target.display}${malformed ? `; skipped ${malformed} malformed journal lines` : ''}\n`,
          );
          for (const e of out.errors) process.stderr.write(`harness: warning: ${e.location}: ${e.message}\n`);
        }
        if (out.errors.length > 0) process.exitCode = 3;
      });
    });

  index
    .command('add')
    .description('index run folders, journals or experiment JSON files from anywhere')
    .argument('<paths...>', 'run folders, journal.jsonl or experiment JSON files')
    .option('--store <url>', STORE_HELP)
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (paths, opts) => {
      const { withStore } = await import('../store-support.js');
      await withStore({ ...opts, sync: false }, async (store) => {
        for (const p of paths) {
          const r = await store.indexRun(p);
          process.stdout.write(
            `${r.id}: ${r.unchanged ? 'already indexed' : `${r.results} results indexed${r.incremental ? ' (new tail)' : ''}`} (${r.state})\n`,
          );
        }
      });
    });
}
