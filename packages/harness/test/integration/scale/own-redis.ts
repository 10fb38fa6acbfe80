import { type ChildProcess, spawnSync } from 'node:child_process';
import { freePort, redisAnswering, spawnRedisServer } from './redis-server.js';

/**
 * A redis-server of a test's own, on a free 127.0.0.1 port, that the test may SIGKILL and restart on the
 * same port (never the shared CI Redis of HARNESS_TEST_REDIS_URL). Started without persistence, as many
 * dev and CI Redis instances are, so a restart comes back empty. Needs `redis-server` on PATH: tests skip
 * with `reason` locally and fail under CI=true (`.ci/run` installs it).
 */
export interface OwnRedis {
  available: boolean;
  reason: string;
  /** Start (or restart on the same port) and wait until it answers; resolves with its URL. */
  start(extraArgs?: string[]): Promise<string>;
  /** SIGKILL (no shutdown, nothing saved) and wait until the process is gone. */
  kill(): Promise<void>;
  /** Stop it if running. */
  stop(): Promise<void>;
  /** A free loopback port where nothing listens (for "Redis is down" cases). */
  port(): Promise<number>;
}

export function ownRedis(): OwnRedis {
  const installed = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
  let child: ChildProcess | null = null;
  let port = 0;
  let args: string[] = [];
  const gone = async (signal: NodeJS.Signals) => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  };
  return {
    available: installed,
    reason:
      'redis-server is not installed (apt-get install redis-server): these tests kill and restart their own Redis',
    async port() {
      if (port === 0) port = await freePort();
      return port;
    },
    async start(extraArgs) {
      if (port === 0) port = await freePort();
      if (extraArgs) args = extraArgs;
      const c = spawnRedisServer(port, args);
      child = c;
      return redisAnswering(c, port, 400);
    },
    kill: () => gone('SIGKILL'),
    stop: () => gone('SIGTERM'),
  };
}
