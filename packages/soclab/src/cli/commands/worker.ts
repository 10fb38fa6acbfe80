import { errorMessage } from '@aeh/harness/errors';
import type { Command } from '@commander-js/extra-typings';
import { positiveInt } from '../campaign-support.js';
import { CliError, EXIT } from '../common.js';

/** `soclab worker`: run the scenario runs of campaigns queued with `soclab campaign|compare --queue` (any number, any machine). */
export function register(program: Command): void {
  program
    .command('worker')
    .description(
      'run the scenario runs of campaigns queued with soclab campaign/compare --queue redis://… (start any number, on any machine with the same soclab and provider keys); exit 2 if Redis is unreachable at start, 3 if the evidence database cannot be opened',
    )
    .requiredOption('-q, --queue <redis-url>', 'Redis the campaigns are queued on, e.g. redis://10.0.0.5:6379')
    .option(
      '-c, --concurrency <n>',
      'scenario runs in flight at once per campaign',
      positiveInt('--concurrency', 64),
      4,
    )
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .option(
      '--evidence-dir <dir>',
      'where seeded campaigns keep their chains when no database is named (one file per campaign and worker)',
      'runs/soclab-worker',
    )
    .option(
      '--lock-duration <ms>',
      "job lock: a dead worker's scenario runs go to another worker after about this long",
      positiveInt('--lock-duration', 3_600_000),
      30_000,
    )
    .option(
      '--stalled-interval <ms>',
      'how often to look for scenario runs of dead workers (default: half the lock)',
      positiveInt('--stalled-interval', 3_600_000),
    )
    .option(
      '--max-stalled <n>',
      'times a scenario run may be recovered from dead workers before it is recorded as an error',
      positiveInt('--max-stalled', 100),
      2,
    )
    .option('--idle-exit <seconds>', 'exit after this long with no queued campaign', positiveInt('--idle-exit', 86_400))
    .action(async (flags) => {
      const { checkRedisUrl, connectRedis, RedisUnreachableError } = await import('@aeh/harness/queue/redis');
      try {
        checkRedisUrl(flags.queue);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      const [{ WorkerHost }, { prepareQueuedCampaign, SOCLAB_RUNNER }, { openEvidenceStore }] = await Promise.all([
        import('@aeh/harness/queue/worker'),
        import('../../service/queue-campaign.js'),
        import('../../evidence/store.js'),
      ]);
      // A named evidence database is opened once before taking jobs: one that cannot be opened (exit 3, naming it)
      // would otherwise fail every scenario run this worker takes. Without one, seeded campaigns get files of their
      // own under --evidence-dir, so there is nothing to check yet.
      const db = flags.db ?? (process.env.SOCLAB_DATABASE_URL || undefined);
      if (db !== undefined) await (await openEvidenceStore(db)).close();
      let name = '';
      const log = (m: string) => process.stderr.write(`${m}\n`);
      // One client for the notes of which chains each attempt writes (docs/soclab/operations.md, a worker dies).
      let notes: ReturnType<typeof connectRedis> | null = null;
      const redis = () => {
        notes ??= connectRedis(flags.queue);
        return notes;
      };
      const host = new WorkerHost({
        url: flags.queue,
        runner: SOCLAB_RUNNER,
        concurrency: flags.concurrency,
        lockDurationMs: flags.lockDuration,
        stalledIntervalMs: flags.stalledInterval,
        maxStalledCount: flags.maxStalled,
        idleExitSeconds: flags.idleExit,
        log: (m) => process.stderr.write(`${m.replace(/^harness worker/, 'soclab worker')}\n`),
        prepareRun: (record) =>
          prepareQueuedCampaign(record, {
            evidenceUrl: flags.db,
            evidenceDir: flags.evidenceDir,
            workerName: name,
            redis,
            log,
          }),
      });
      name = host.name;
      let signals = 0;
      const onSignal = () => {
        signals++;
        if (signals === 1) {
          process.stderr.write(
            'soclab worker: stopping after the scenario runs in flight (Ctrl+C again to quit now)\n',
          );
          void host.stop();
        } else process.exit(130);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      await host.start().catch((error: unknown) => {
        throw error instanceof RedisUnreachableError ? new CliError(error.message, EXIT.usage) : error;
      });
      await host.finished;
      if (notes) (await (notes as ReturnType<typeof connectRedis>).catch(() => null))?.disconnect();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = EXIT.ok;
    });
}
