import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

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
      const c = spawn(
        'redis-server',
        ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', ...args],
        { stdio: 'ignore' },
      );
      child = c;
      const url = `redis://127.0.0.1:${port}`;
      const { Redis } = await import('ioredis');
      for (let i = 0; i < 400; i++) {
        if (c.exitCode !== null) throw new Error(`redis-server exited with ${c.exitCode} on port ${port}`);
        const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        client.on('error', () => {});
        try {
          await client.connect();
          await client.ping();
          client.disconnect();
          return url;
        } catch {
          client.disconnect();
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      throw new Error(`redis-server did not start on port ${port}`);
    },
    kill: () => gone('SIGKILL'),
    stop: () => gone('SIGTERM'),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const p = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(p));
    });
  });
}
