import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * Redis for the queue tests: HARNESS_TEST_REDIS_URL when set (CI starts one); otherwise, for local
 * development, a throwaway `redis-server` on a random 127.0.0.1 port that `stop()` kills by pid.
 * `reason` says why the tests cannot run (CI without Redis fails; elsewhere they are skipped).
 */
export interface TestRedis {
  available: boolean;
  reason: string;
  start(): Promise<string>;
  stop(): Promise<void>;
}

export function testRedis(): TestRedis {
  const fromEnv = process.env.HARNESS_TEST_REDIS_URL;
  const installed = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
  let child: ChildProcess | null = null;
  return {
    available: Boolean(fromEnv) || installed,
    reason: fromEnv
      ? ''
      : 'HARNESS_TEST_REDIS_URL is not set and redis-server is not installed (apt-get install redis-server, or set HARNESS_TEST_REDIS_URL=redis://127.0.0.1:6379)',
    async start() {
      if (fromEnv) return fromEnv;
      const port = await freePort();
      child = spawnRedisServer(port);
      return redisAnswering(child, port, 100);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      child = null;
    },
  };
}

/** A redis-server on 127.0.0.1:`port` without persistence (so a restart comes back empty), output ignored. */
export function spawnRedisServer(port: number, extraArgs: readonly string[] = []): ChildProcess {
  return spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', ...extraArgs],
    { stdio: 'ignore' },
  );
}

/** Its URL once the server answers PING (tried every 50 ms, `attempts` times); throws if it exits or never answers. */
export async function redisAnswering(child: ChildProcess, port: number, attempts: number): Promise<string> {
  const url = `redis://127.0.0.1:${port}`;
  const { Redis } = await import('ioredis');
  for (let i = 0; i < attempts; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} on port ${port}`);
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
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}
