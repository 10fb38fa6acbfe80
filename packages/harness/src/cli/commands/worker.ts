import type { Command } from '@commander-js/extra-typings';
import { errorMessage } from '../../core/errors.js';
import { CliError, collect, positiveInt, positiveSeconds } from '../common.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('process the cases of runs queued with harness run --queue (any number of workers, on any machines)')
    .requiredOption('-q, --queue <redis-url>', 'Redis the coordinator uses, e.g. redis://10.0.0.5:6379')
    .option('-c, --concurrency <n>', 'cases in flight at once per run (default 8)', positiveInt('--concurrency'))
    .option('--suite <file>', "suite file to use when it is not at the coordinator's path (same content required)")
    .option('--run <id>', 'only process this run (repeatable; default: every queued run)', collect)
    .option(
      '--lock-duration <ms>',
      "job lock: a dead worker's jobs go to another worker after about this long (default 30000)",
      positiveInt('--lock-duration'),
    )
    .option(
      '--stalled-interval <ms>',
      'how often to look for jobs of dead workers (default: lock/2)',
      positiveInt('--stalled-interval'),
    )
    .option(
      '--max-stalled <n>',
      'times a job may be recovered from dead workers before it fails (default 2)',
      positiveInt('--max-stalled'),
    )
    .option(
      '--idle-exit <seconds>',
      'exit after this long with no queued run (default: run until stopped)',
      positiveSeconds('--idle-exit'),
    )
    .action(async (flags) => {
      const { checkRedisUrl } = await import('../../scale/queue/redis.js');
      try {
        checkRedisUrl(flags.queue);
      } catch (err) {
        throw new CliError(errorMessage(err));
      }
      const { WorkerHost } = await import('../../scale/queue/worker.js');
      const host = new WorkerHost({
        url: flags.queue,
        concurrency: flags.concurrency,
        suite: flags.suite,
        runs: flags.run,
        lockDurationMs: flags.lockDuration,
        stalledIntervalMs: flags.stalledInterval,
        maxStalledCount: flags.maxStalled,
        idleExitSeconds: flags.idleExit,
      });
      let signals = 0;
      const onSignal = () => {
        signals++;
        if (signals === 1) {
          process.stderr.write('harness worker: stopping after the cases in flight (Ctrl+C again to quit now)\n');
          void host.stop();
        } else process.exit(130);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const { RedisUnreachableError } = await import('../../scale/queue/redis.js');
      await host.start().catch((err: unknown) => {
        // Unreachable at start: a set-up problem to fix (exit 2), said at once rather than retried forever.
        throw err instanceof RedisUnreachableError ? new CliError(err.message, undefined, { cause: err }) : err;
      });
      await host.finished;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = 0;
    });
}
