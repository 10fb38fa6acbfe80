import { delimiter } from 'node:path';
import { isErrnoException } from '@aeh/harness/errors';
import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../common.js';

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port must be 0..65535 (got '${value}')`);
  return n;
};

/**
 * `soclab serve`: the HTTP API (/api/v1, OpenAPI at /api/openapi.json, docs at /api/docs) and the web console.
 * Binds 127.0.0.1 unless told otherwise. Stops cleanly on SIGINT/SIGTERM (running campaigns are marked failed,
 * except those waiting for a person: they are kept for the next start).
 */
export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API and the web console (campaigns, approvals inbox, evidence replay)')
    .option('--port <n>', 'port to listen on (default 8780; 0 picks a free one)', port)
    .option('--host <addr>', 'interface to bind (default 127.0.0.1)')
    .option('--config <file>', 'server configuration (JSON or YAML): tokens, data_dir, database_url, limits')
    .option('--data-dir <dir>', 'where the database, campaign run folders and a generated token live')
    .option('--log', 'log requests to stderr')
    .option('--otel', 'export OpenTelemetry traces of every campaign (on when OTEL_EXPORTER_OTLP_ENDPOINT is set)')
    .addHelpText(
      'after',
      '\nTokens: `tokens` in --config, or SOCLAB_API_TOKENS="name:role:token,..." (roles viewer, operator, approver,\n' +
        'admin). With none configured, an admin token is generated into <data_dir>/api-token (mode 600).\n' +
        'Database: SQLite <data_dir>/soclab.sqlite by default; SOCLAB_DATABASE_URL=postgres://... for PostgreSQL.\n' +
        'Queue: queue_url in --config or SOCLAB_QUEUE_URL=redis://... runs campaigns on soclab worker processes\n' +
        '(exit 2 if Redis is unreachable at start).',
    )
    .action(async (opts) => {
      const { loadServerConfig, ServerConfigError } = await import('../../api/config.js');
      const { createApiServer } = await import('../../api/server.js');
      let config: ReturnType<typeof loadServerConfig>;
      try {
        config = loadServerConfig({
          file: opts.config,
          overrides: { port: opts.port, host: opts.host, data_dir: opts.dataDir, log: opts.log ? true : undefined },
        });
      } catch (error) {
        if (error instanceof ServerConfigError) throw new CliError(error.message, EXIT.usage);
        throw error;
      }
      if (config.provider_modules.length > 0) {
        const { loadProviderModules, PROVIDER_MODULES_ENV, ProviderModuleError } = await import(
          '../../providers/modules.js'
        );
        const { builtinProviderIds } = await import('../../providers/registry.js');
        try {
          await loadProviderModules(config.provider_modules, {
            reserved: builtinProviderIds(),
            source: `${opts.config ?? 'configuration'}: provider_modules`,
          });
        } catch (error) {
          if (error instanceof ProviderModuleError) throw new CliError(error.message, EXIT.usage);
          throw error;
        }
        // Campaign worker threads load the same modules (they do not share this thread's registry).
        process.env[PROVIDER_MODULES_ENV] = config.provider_modules.join(delimiter);
      }
      // Campaigns started through the API are traced like CLI ones (docs/observability.md); the SDK loads only then.
      const { startSoclabTelemetry } = await import('../../telemetry/session.js');
      const telemetry = await startSoclabTelemetry(opts.otel);
      let server: Awaited<ReturnType<typeof createApiServer>>;
      try {
        server = await createApiServer({ config });
      } catch (error) {
        // queue_url names no reachable Redis (or cannot work with this store): a setting to fix, before anything ran.
        if (error instanceof ServerConfigError) {
          await telemetry?.shutdown().catch(() => {});
          throw new CliError(error.message, EXIT.usage);
        }
        throw error;
      }
      let url: string;
      try {
        url = await server.listen();
      } catch (error) {
        await server.close();
        const code = isErrnoException(error) ? error.code : undefined;
        if (code === 'EADDRINUSE') throw new CliError(`port ${config.port} is in use; choose another --port`);
        if (code === 'EADDRNOTAVAIL') throw new CliError(`cannot bind ${config.host}: no such local address`);
        throw error;
      }
      const where = server.context.evidence.location;
      process.stderr.write(`soclab serve: listening on ${url}\n`);
      process.stderr.write(
        `  console  ${url}/\n  API      ${url}/api/v1  (docs ${url}/api/docs)\n  store    ${where}\n`,
      );
      if (config.queue_url) {
        const { redactRedisUrl } = await import('@aeh/harness/queue/redis');
        process.stderr.write(
          `  queue    ${redactRedisUrl(config.queue_url)} (campaigns run on soclab worker processes)\n`,
        );
      }
      if (server.generatedTokenFile) {
        process.stderr.write(`  token    no tokens configured: an admin token is in ${server.generatedTokenFile}\n`);
      }
      // Machine-readable line for scripts and tests: the first stdout line is the URL.
      process.stdout.write(`${url}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      process.stderr.write('soclab serve: stopping\n');
      await server.close();
      await telemetry?.shutdown().catch(() => {});
      // A campaign suspended while it waits for a person (it resumes at the next start) may still hold a timer
      // when it ran on the server's own event loop (campaign_workers: 0): everything is stored, so end here.
      process.exit(process.exitCode ?? 0);
    });
}
