import type { Command } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, table } from '../common.js';

/** `soclab verify-chain [RUN_ID]`: verify one run's hash chain, or every run in the store. Exit 1 if any is invalid. */
export function register(program: Command): void {
  program
    .command('verify-chain')
    .description('verify the evidence hash chain of one run (or all runs); exit 1 if any chain is invalid')
    .argument('[run-id]', 'run to verify (default: every run in the store)')
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .option('--json', 'machine-readable output')
    .action(async (runId, opts) => {
      const { openEvidenceStore } = await import('../../evidence/store.js');
      const { EvidenceDatabaseMissingError } = await import('../../evidence/database.js');
      // Read only: a mistyped --db is exit 2, never a new empty database that passes.
      const store = await openEvidenceStore(opts.db, { readOnly: true }).catch((error: unknown) => {
        if (error instanceof EvidenceDatabaseMissingError)
          throw new CliError(`${error.message} (give --db or SOCLAB_DATABASE_URL)`, EXIT.usage);
        throw error;
      });
      try {
        const ids = runId ? [runId] : await store.runIds();
        if (runId && (await store.rows(runId)).length === 0) {
          throw new CliError(`no events for run ${runId} in ${store.location}`, EXIT.usage);
        }
        const { runEnding } = await import('../../evidence/interrupted.js');
        const { verifyRows } = await import('../../evidence/hash-chain.js');
        const results = [];
        for (const id of ids) {
          const rows = await store.rows(id);
          // A valid chain that ends in run.interrupted (or not at all) is complete as far as it goes: say so.
          results.push({ ...verifyRows(id, rows), ending: runEnding(rows.map((r) => r.event_type)) });
        }
        const invalid = results.filter((r) => !r.valid);
        if (opts.json) {
          printJson({ store: store.location, runs: results, valid: invalid.length === 0 });
        } else {
          if (results.length === 0) process.stdout.write(`no runs in ${store.location}\n`);
          else {
            const t = table(['run', 'events', 'chain', 'ending', 'first invalid', 'reason', 'root hash']);
            for (const r of results) {
              t.push([
                r.run_id,
                String(r.length),
                r.valid ? c.green('valid') : c.red('INVALID'),
                r.ending === 'finished' ? r.ending : c.yellow(r.ending),
                r.first_invalid_sequence === null ? '-' : String(r.first_invalid_sequence),
                r.reason ?? '-',
                r.root_hash ?? '-',
              ]);
            }
            process.stdout.write(`${t.toString()}\n`);
            process.stdout.write(
              `${results.length - invalid.length} of ${results.length} chains valid (${store.location})\n`,
            );
          }
        }
        if (invalid.length > 0) process.exitCode = EXIT.gate;
      } finally {
        await store.close();
      }
    });
}
