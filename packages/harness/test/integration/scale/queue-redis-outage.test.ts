import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownRedis } from './own-redis.js';
import {
  comparable,
  ensureBuilt,
  exited,
  experiment,
  journalResults,
  keysOf,
  localRun,
  slowSuite,
  slowSuiteKeys,
  startHarness,
  waitFor,
  workerArgs,
} from './queue-processes.js';

// The broker itself failing: each test runs its own redis-server (no persistence) and SIGKILLs or withholds it.
const redis = ownRedis();
const children: ChildProcess[] = [];
const CASES = 60; // 90 case x repeat keys

const runArgs = (url: string, extra: string[] = []) => [
  'run',
  'suite.yaml',
  '--queue',
  url,
  '--out',
  'dist',
  '--format',
  'json',
  '--no-index',
  ...extra,
];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis.stop();
});

describe('Redis unreachable when a distributed run starts', () => {
  beforeAll(() => ensureBuilt());

  it('harness run --queue and harness worker exit 2 at once, naming the Redis they could not reach', async () => {
    const port = await redis.port(); // nothing listens there yet
    const dir = slowSuite('queue-down', 3, 10);
    const url = `redis://127.0.0.1:${port}`;
    const run = startHarness(children, runArgs(url), dir);
    const worker = startHarness(children, ['worker', '--queue', url], dir);
    // A clear failure, not a background retry loop: both end within seconds (the bound is generous for load).
    expect(await exited(run, 20_000)).toBe(2);
    expect(await exited(worker, 20_000)).toBe(2);
    expect(run.errText).toContain(`harness: [AEH_ERR_REDIS_UNREACHABLE] cannot reach Redis at ${url}`);
    expect(run.errText).toMatch(/ECONNREFUSED/); // the reason, as the OS gave it
    expect(worker.errText).toContain(`harness: [AEH_ERR_REDIS_UNREACHABLE] cannot reach Redis at ${url}`);
    // Nothing was started: no run folder to clean up.
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });

  it('the outage budget and stall time must be positive numbers of seconds (exit 2, naming the flag)', async () => {
    const dir = slowSuite('queue-flags', 2, 10);
    const url = `redis://127.0.0.1:${await redis.port()}`;
    for (const [flag, value] of [
      ['--queue-outage-budget', '0'],
      ['--queue-outage-budget', '-5'],
      ['--queue-outage-budget', 'soon'],
      ['--queue-stall-after', 'NaN'],
      ['--queue-stall-after', '1e999'],
    ] as const) {
      const run = startHarness(children, runArgs(url, [flag, value]), dir);
      expect(await exited(run, 30_000)).toBe(2);
      expect(run.errText).toContain(`${flag} must be a positive number of seconds (got '${value}')`);
    }
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });
});

if (!redis.available && process.env.CI) {
  describe('distributed runs when Redis fails mid-run', () => {
    it('needs redis-server in CI', () => {
      throw new Error(`CI=true but ${redis.reason}`);
    });
  });
} else if (!redis.available) {
  describe.skip(`distributed runs when Redis fails mid-run — skipped: ${redis.reason}`, () => {
    it('survives a Redis restart', () => {});
  });
} else {
  describe('distributed runs when Redis fails mid-run', () => {
    beforeAll(() => ensureBuilt());
    afterEach(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await redis.stop();
    });

    it('Redis SIGKILLed and restarted empty: the run finishes by itself, every key once, same metrics as local', async () => {
      const dir = slowSuite('queue-restart', CASES, 150);
      const local = localRun(dir);
      expect(local.stderr).not.toMatch(/harness: /);
      expect(local.status).toBe(0);
      const expected = slowSuiteKeys(CASES);

      const url = await redis.start();
      const worker = startHarness(children, workerArgs(url, 3), dir);
      const coordinator = startHarness(children, runArgs(url), dir);
      await waitFor('some results', () => journalResults(join(dir, 'dist')).length >= 10);
      await redis.kill();
      await new Promise((r) => setTimeout(r, 1500));
      await redis.start();

      expect(await exited(coordinator, 120_000)).toBe(0);
      const said = coordinator.errText;
      // Every message on the way is true. The outage is only seen when a reconciliation tick falls inside it;
      // when it is, its end is said too. The restart and exactly how many case runs went back are always said.
      if (said.includes('lost the connection to Redis')) {
        expect(said).toContain(`harness: lost the connection to Redis at ${url}`);
        expect(said).toMatch(/harness: Redis at \S+ is reachable again after [\d.]+ s/);
      }
      const m =
        /Redis restarted and lost the queue; re-enqueued (\d+) missing case run\(s\) \((\d+) result\(s\) already in the journal are kept\)/.exec(
          said,
        );
      expect(m, said).not.toBeNull();
      expect(Number(m?.[1]) + Number(m?.[2])).toBe(expected.length);
      expect(Number(m?.[2])).toBeGreaterThanOrEqual(10);
      expect(said).not.toMatch(/no worker|stay queued|not recorded/);
      // The set-up that made this possible is named once, at start.
      expect(said.match(/harness: warning: Redis persistence is off \(appendonly no, save ''\)/g)).toHaveLength(1);

      const results = journalResults(join(dir, 'dist'));
      const keys = keysOf(results);
      expect(new Set(keys).size).toBe(keys.length); // exactly once
      expect([...keys].sort()).toEqual([...expected].sort());
      const dist = experiment(join(dir, 'dist'));
      const localExp = experiment(join(dir, 'local'));
      expect(dist.state).toBe('completed');
      expect(dist.metrics).toEqual(localExp.metrics);
      expect(dist.thresholds).toEqual(localExp.thresholds);
      expect(comparable(dist.results)).toEqual(comparable(localExp.results));

      // The worker stayed up through the restart, said what happened, and still stops cleanly.
      expect(worker.exitCode).toBeNull();
      expect(worker.errText).toMatch(/lost the connection to Redis|Redis restarted/);
      expect(worker.errText).toMatch(/Redis is reachable again|Redis restarted/);
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }, 240_000);

    it('Redis down past the outage budget: a valid partial run, and the printed resume command finishes it', async () => {
      const dir = slowSuite('queue-outage', CASES, 150);
      expect(localRun(dir).status).toBe(0);
      const expected = slowSuiteKeys(CASES);

      const url = await redis.start();
      const worker = startHarness(children, workerArgs(url, 3), dir);
      const coordinator = startHarness(children, runArgs(url, ['--queue-outage-budget', '2']), dir);
      await waitFor('some results', () => journalResults(join(dir, 'dist')).length >= 10);
      await redis.kill();

      expect(await exited(coordinator, 60_000)).toBe(3);
      const said = coordinator.errText;
      expect(said).toContain(`harness: lost the connection to Redis at ${url}`);
      expect(said).toMatch(
        /stayed unreachable for 2 s \(--queue-outage-budget\); stopping: (\d+) case run\(s\) are recorded, (\d+) are not/,
      );
      const partial = experiment(join(dir, 'dist'));
      const recorded = keysOf(journalResults(join(dir, 'dist')));
      expect(partial.state).toBe('cancelled');
      expect(partial.results.length).toBe(recorded.length);
      expect(recorded.length).toBeLessThan(expected.length);
      expect(new Set(recorded).size).toBe(recorded.length);
      const counts = /stopping: (\d+) case run\(s\) are recorded, (\d+) are not/.exec(said);
      expect(Number(counts?.[1])).toBe(recorded.length);
      expect(Number(counts?.[1]) + Number(counts?.[2])).toBe(expected.length);

      // The resume command as printed, run verbatim once Redis is back (empty), completes the run.
      const resume = /interrupted: resume with {2}harness (run .+)$/m.exec(said)?.[1];
      expect(resume).toBe(`run suite.yaml --queue ${url} --resume dist`);
      await redis.start();
      const second = startHarness(children, [...(resume as string).split(' '), '--format', 'json', '--no-index'], dir);
      expect(await exited(second, 120_000)).toBe(0);
      expect(second.errText).not.toMatch(/harness: (?!warning)/);
      const keys = keysOf(journalResults(join(dir, 'dist')));
      expect(new Set(keys).size).toBe(keys.length);
      expect([...keys].sort()).toEqual([...expected].sort());
      const done = experiment(join(dir, 'dist'));
      expect(done.state).toBe('completed');
      expect(done.metrics).toEqual(experiment(join(dir, 'local')).metrics);
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }, 240_000);

    it('no worker connected: the stall is said once, with what to do; an evicting Redis is named at start', async () => {
      const dir = slowSuite('queue-stall', 4, 10);
      const url = await redis.start(['--maxmemory-policy', 'allkeys-lru']);
      const coordinator = startHarness(children, runArgs(url, ['--queue-stall-after', '1']), dir);
      await waitFor('the stall message', () => /no result for/.test(coordinator.errText), 60_000);
      // Long enough for a second message if it were repeated on every tick.
      await new Promise((r) => setTimeout(r, 3000));
      const said = coordinator.errText;
      expect(said.match(/no result for/g)).toHaveLength(1);
      expect(said).toMatch(
        new RegExp(
          `no result for \\d+ s: 6 case run\\(s\\) are queued in harness-run-\\S+ and no worker is connected\\. Start one with: {2}harness worker --queue ${url}`,
        ),
      );
      expect(
        said.match(/warning: Redis has maxmemory-policy allkeys-lru: .*'maxmemory-policy noeviction'/g),
      ).toHaveLength(1);

      // Doing what it says finishes the run.
      const elsewhere = mkdtempSync(join(tmpdir(), 'aeh-worker-'));
      const worker = startHarness(children, workerArgs(url, 2), elsewhere);
      expect(await exited(coordinator, 60_000)).toBe(0);
      expect(journalResults(join(dir, 'dist'))).toHaveLength(6);
      expect(worker.errText.match(/warning: Redis has maxmemory-policy allkeys-lru/g)).toHaveLength(1);
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }, 240_000);

    it('a slow case on a live worker is not a stall: nothing is said while the worker beats', async () => {
      const dir = slowSuite('queue-slow', 2, 4000); // three case x repeat keys of 4 s each, run side by side
      const url = await redis.start();
      const worker = startHarness(children, workerArgs(url, 3), dir);
      const coordinator = startHarness(children, runArgs(url, ['--queue-stall-after', '1']), dir);
      expect(await exited(coordinator, 120_000)).toBe(0);
      expect(journalResults(join(dir, 'dist'))).toHaveLength(3);
      expect(coordinator.errText).not.toMatch(/no result for|no worker/);
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }, 240_000);
  });
}
