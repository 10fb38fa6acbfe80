import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bin,
  comparable,
  exited,
  experiment,
  type JournalResult,
  journalResults,
  root,
  startHarness,
  waitFor,
  workerArgs,
} from './queue-processes.js';
import { testRedis } from './redis-server.js';

// Distributed runs on a real redis-server with real worker processes of the built CLI.
const agentFixture = join(root, 'packages/harness/test/fixtures/scale/slow-agent.mjs');
const TOKEN = 'tok-9f2c1e77aa0b';
const redis = testRedis();
const children: ChildProcess[] = [];

function suiteDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-queue-'));
  const tests = Array.from(
    { length: 36 },
    (_, i) => `  - { id: q${String(i).padStart(2, '0')}, input: 'ask ${i}', repeat: ${1 + (i % 2)} }`,
  );
  writeFileSync(
    join(d, 'suite.yaml'),
    [
      'version: "1.0"',
      'name: queue-kill',
      'agent:',
      '  adapter: module',
      '  options:',
      `    module: ${agentFixture}#SlowAgent`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a suite variable, resolved by the workers
      '    options: { token: "${QUEUE_TEST_TOKEN}", delay_ms: 250 }',
      'evaluators: [{ name: contains, options: { value: authorised } }]',
      'metrics: [success_rate, accuracy, latency, p95_latency, pass_at_k, error_rate]',
      'thresholds: { success_rate: { minimum: 0.5 } }',
      'tests:',
      ...tests,
    ].join('\n'),
  );
  return d;
}

function start(args: string[], cwd: string, env: Record<string, string | undefined>) {
  return startHarness(children, args, cwd, { QUEUE_TEST_TOKEN: undefined, ...env });
}

function localRun(dir: string): void {
  const r = spawnSync(
    process.execPath,
    [bin, 'run', 'suite.yaml', '--out', 'local', '--format', 'json', '--no-index'],
    {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CI: '', QUEUE_TEST_TOKEN: TOKEN },
    },
  );
  expect(r.stderr).not.toMatch(/harness: /);
  expect(r.status).toBe(0);
}

/** Every string stored in Redis right now (keys of every type), to look for leaked secrets. */
async function redisText(url: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const c = new Redis(url);
  try {
    const parts: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await c.scan(cursor, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await c.type(key);
        if (type === 'string') parts.push((await c.get(key)) ?? '');
        else if (type === 'hash') parts.push(JSON.stringify(await c.hgetall(key)));
        else if (type === 'list') parts.push(JSON.stringify(await c.lrange(key, 0, -1)));
        else if (type === 'set') parts.push(JSON.stringify(await c.smembers(key)));
        else if (type === 'zset') parts.push(JSON.stringify(await c.zrange(key, '0', '-1')));
        else if (type === 'stream') parts.push(JSON.stringify(await c.xrange(key, '-', '+')));
      }
    } while (cursor !== '0');
    return parts.join('\n');
  } finally {
    c.disconnect();
  }
}

async function redisKeys(url: string, pattern: string): Promise<string[]> {
  const { Redis } = await import('ioredis');
  const c = new Redis(url);
  try {
    return await c.keys(pattern);
  } finally {
    c.disconnect();
  }
}

if (!redis.available && process.env.CI) {
  describe('distributed runs (Redis)', () => {
    it('needs Redis in CI', () => {
      throw new Error(`CI=true but no Redis: ${redis.reason}`);
    });
  });
} else if (!redis.available) {
  describe.skip(`distributed runs (Redis) — skipped: ${redis.reason}`, () => {
    it('runs on workers', () => {});
  });
} else {
  describe('distributed runs (Redis)', () => {
    let url = '';

    beforeAll(async () => {
      if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
        spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
      }
      url = await redis.start();
    });

    afterAll(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await redis.stop();
    });

    it('two workers, one killed mid-run: every case x repeat recorded exactly once, same metrics as a local run', async () => {
      const dir = suiteDir();
      localRun(dir);
      const local = experiment(join(dir, 'local'));

      // The coordinator has no token: only the workers resolve ${QUEUE_TEST_TOKEN}, from their environment.
      const coordinator = start(
        ['run', 'suite.yaml', '--queue', url, '--out', 'dist', '--format', 'json', '--no-index'],
        dir,
        {},
      );
      const a = start(workerArgs(url, 3), dir, { QUEUE_TEST_TOKEN: TOKEN });
      const b = start(workerArgs(url, 3), dir, { QUEUE_TEST_TOKEN: TOKEN });
      const nameA = `${hostname()}:${a.pid}`;

      await waitFor('a result from worker A', () =>
        journalResults(join(dir, 'dist')).some((r) => r.metadata.worker === nameA),
      );
      // Kill A at once, while it still holds jobs (reading Redis first could let the queue drain meanwhile).
      a.kill('SIGKILL');
      const duringRun = await redisText(url);

      const code = await exited(coordinator);
      const stderr = coordinator.errText;
      expect(stderr).not.toMatch(/harness: (?!warning)/);
      expect(code).toBe(0);

      const results = journalResults(join(dir, 'dist'));
      const keys = results.map((r) => `${r.test_id}#${r.repeat}`);
      const expected = local.results.map((r: JournalResult) => `${r.test_id}#${r.repeat}`);
      expect(keys.length).toBe(expected.length);
      expect(new Set(keys).size).toBe(keys.length); // exactly once
      expect([...keys].sort()).toEqual([...expected].sort());

      // Jobs A held when it died were recovered from the stalled state and finished by B.
      const recovered = results.filter((r) => Number(r.metadata.recovered_from_stalled ?? 0) >= 1);
      expect(recovered.length).toBeGreaterThan(0);
      expect(recovered.every((r) => r.metadata.worker === `${hostname()}:${b.pid}`)).toBe(true);

      const dist = experiment(join(dir, 'dist'));
      expect(dist.state).toBe('completed');
      expect(dist.metrics).toEqual(local.metrics);
      expect(dist.thresholds).toEqual(local.thresholds);
      expect(comparable(dist.results)).toEqual(comparable(local.results));
      // Workers resolved the token (cases pass only with it) and scrubbed it everywhere.
      expect(dist.metrics.success_rate.value).toBeGreaterThan(0.5);
      expect(duringRun).toContain('queue-kill');
      expect(duringRun).not.toContain(TOKEN);
      expect(readFileSync(join(dir, 'dist', 'journal.jsonl'), 'utf8')).not.toContain(TOKEN);
      // The finished run is retired from Redis.
      expect(await redisKeys(url, `bull:harness-run-${dist.id}*`)).toEqual([]);

      b.kill('SIGTERM');
      expect(await exited(b)).toBe(0);
    });

    it('a killed coordinator resumes collecting: results finished meanwhile are recorded, none twice', async () => {
      const dir = suiteDir();
      localRun(dir);
      const local = experiment(join(dir, 'local'));

      const worker = start(workerArgs(url, 2), dir, { QUEUE_TEST_TOKEN: TOKEN });
      const first = start(
        ['run', 'suite.yaml', '--queue', url, '--out', 'dist', '--format', 'json', '--no-index'],
        dir,
        {},
      );
      await waitFor('some results', () => journalResults(join(dir, 'dist')).length >= 6);
      first.kill('SIGKILL');
      await exited(first);
      const before = journalResults(join(dir, 'dist')).length;
      // The worker keeps going while no coordinator listens.
      await new Promise((r) => setTimeout(r, 1500));

      const second = start(
        ['run', 'suite.yaml', '--queue', url, '--resume', 'dist', '--format', 'json', '--no-index'],
        dir,
        {},
      );
      const code = await exited(second);
      expect(second.errText).not.toMatch(/harness: (?!warning)/);
      expect(code).toBe(0);

      const results = journalResults(join(dir, 'dist'));
      const keys = results.map((r) => `${r.test_id}#${r.repeat}`);
      expect(before).toBeLessThan(local.results.length);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBe(local.results.length);
      const dist = experiment(join(dir, 'dist'));
      expect(dist.state).toBe('completed');
      expect(dist.metrics).toEqual(local.metrics);
      expect(comparable(dist.results)).toEqual(comparable(local.results));

      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    });

    it('transient agent errors are retried through BullMQ attempts; a worker without the suite file uses the carried suite', async () => {
      const d = mkdtempSync(join(tmpdir(), 'aeh-queue-'));
      const flaky = join(root, 'packages/harness/test/fixtures/scale/flaky-agent.mjs');
      const cases = Array.from({ length: 6 }, (_, i) => `  - { id: f${i}, input: 'f${i}' }`);
      writeFileSync(
        join(d, 'flaky.yaml'),
        [
          'version: "1.0"',
          'name: queue-flaky',
          `agent: { adapter: module, options: { module: "${flaky}#run" } }`,
          'evaluators: [{ name: contains, options: { value: ok } }]',
          'metrics: [success_rate]',
          'tests:',
          ...cases,
        ].join('\n'),
      );
      const coordinator = start(
        ['run', join(d, 'flaky.yaml'), '--queue', url, '--out', join(d, 'run'), '--format', 'json', '--no-index'],
        d,
        {},
      );
      // Once the run is registered, the suite file disappears: the worker (elsewhere) must use the carried text.
      const { Redis } = await import('ioredis');
      const c = new Redis(url);
      await waitFor('the run registration', () => existsSync(join(d, 'run', 'journal.jsonl')));
      let registered = false;
      for (const until = Date.now() + 60_000; !registered && Date.now() < until; ) {
        const entries = Object.values(await c.hgetall('harness:runs'));
        registered = entries.some((e) => e.includes('queue-flaky'));
        if (!registered) await new Promise((r) => setTimeout(r, 50));
      }
      c.disconnect();
      expect(registered).toBe(true);
      rmSync(join(d, 'flaky.yaml'));
      const elsewhere = mkdtempSync(join(tmpdir(), 'aeh-worker-'));
      const worker = start(workerArgs(url, 4), elsewhere, {});

      expect(await exited(coordinator)).toBe(0);
      const results = journalResults(join(d, 'run'));
      expect(results.length).toBe(6);
      for (const r of results) {
        expect(r.status).toBe('passed');
        expect(r.attempts).toBe(2);
      }
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    });

    it('a finished coordinator exits with its run, not at its next reconciliation tick', async () => {
      const d = mkdtempSync(join(tmpdir(), 'aeh-queue-exit-'));
      writeFileSync(
        join(d, 'suite.yaml'),
        [
          'version: "1.0"',
          'name: queue-exit',
          'agent: { adapter: echo }',
          'evaluators: [{ name: contains, options: { value: ask } }]',
          'tests:',
          ...Array.from({ length: 8 }, (_, i) => `  - { id: e${i}, input: 'ask ${i}' }`),
        ].join('\n'),
      );
      const worker = start(workerArgs(url, 4), d, {});
      // The fixture's tick is 10 minutes: waiting on it would outlast the 60 s allowed here.
      const coordinator = spawn(
        process.execPath,
        ['--import', 'tsx', join(root, 'packages/harness/test/fixtures/scale/long-tick-coordinator.ts'), url, d],
        { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(coordinator);
      let out = '';
      coordinator.stdout?.on('data', (b) => {
        out += b;
      });
      expect(await exited(coordinator, 60_000)).toBe(0);
      expect(out.trim()).toBe('completed 8');
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    });
  });
}
