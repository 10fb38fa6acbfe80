import { type Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { isErrnoException } from '../../core/errors.js';

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`--port expects 0-65535, got '${value}'`);
  return n;
}

/** `harness view [runs...]`: the local web viewer over the run index. */
export function register(program: Command): void {
  program
    .command('view')
    .description('open the web viewer on the stored runs (binds 127.0.0.1; live while runs are in progress)')
    .argument(
      '[runs...]',
      'run folders, journals or experiment JSON files to index and open (one: its page; two: their comparison)',
    )
    .option('-p, --port <port>', 'port (0 picks a free one)', parsePort, 7600)
    .option('--host <host>', 'interface to bind; anything but loopback exposes your runs to the network', '127.0.0.1')
    .option('--no-watch', 'do not poll run folders for live updates')
    .option(
      '--store <url>',
      'run index: postgres://... or a SQLite file (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)',
    )
    .option('--runs-dir <dir>', 'folder of run folders', 'runs')
    .action(async (paths, opts) => {
      const { openStore } = await import('../../store/run-store.js');
      const { startViewer } = await import('../../viewer/server.js');
      const { CliError, asCliError } = await import('../store-support.js');
      const { existsSync } = await import('node:fs');
      for (const p of paths) if (!existsSync(p)) throw new CliError(`run not found: ${p}`, 2);
      const store = await openStore({ store: opts.store, runsDir: opts.runsDir });
      let viewer: Awaited<ReturnType<typeof startViewer>> | null = null;
      try {
        const sync = await store.syncIndex(opts.runsDir);
        for (const e of sync.errors)
          process.stderr.write(`harness: warning: cannot index ${e.location}: ${e.message}\n`);
        const ids: string[] = [];
        for (const p of paths) {
          try {
            ids.push((await store.indexRun(p)).id);
          } catch (err) {
            throw await asCliError(err);
          }
        }
        try {
          viewer = await startViewer({
            store,
            runsDir: opts.runsDir,
            runs: paths,
            host: opts.host,
            port: opts.port,
            watch: opts.watch,
          });
        } catch (err) {
          if (isErrnoException(err) && err.code === 'EADDRINUSE')
            throw new CliError(`port ${opts.port} is in use; pick another with --port (0 = any free port)`, 3);
          throw err;
        }
        const [firstId, secondId] = ids;
        const route =
          firstId === undefined
            ? ''
            : secondId === undefined
              ? `#/runs/${encodeURIComponent(firstId)}`
              : `#/compare/${encodeURIComponent(firstId)}/${encodeURIComponent(secondId)}`;
        process.stdout.write(`harness view: ${viewer.url}${route}\n`);
        process.stdout.write(
          `  index ${store.target.display}; watching ${opts.runsDir}${opts.watch ? '' : ' (off)'}; Ctrl+C to stop\n`,
        );
        if (!viewer.hasWebApp) {
          process.stderr.write(
            'harness: warning: the web app is not built (run `npm run build`); only the JSON API under /api is served\n',
          );
        }
        if (!['127.0.0.1', 'localhost', '::1'].includes(opts.host)) {
          process.stderr.write(
            `harness: warning: bound to ${opts.host}: anyone who can reach it can read your runs (no authentication)\n`,
          );
        }
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
      } finally {
        await viewer?.close();
        await store.close();
      }
    });
}
