import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis } from '../../../../harness/test/integration/scale/redis-server.js';
import { REPO_ROOT, soclabIsolated as soclab } from '../../helpers/cli.js';
import { journal, monitorRedis, startNode, startSoclabWorker } from '../../helpers/queue.js';

/*
 * `soclab campaign --queue` with real `soclab worker` processes (the CLI from source) on a real redis-server
 * (HARNESS_TEST_REDIS_URL, or a throwaway one): the scorecard equals a local run's byte for byte, a worker killed
 * mid-scenario loses nothing and doubles nothing, and nothing secret ever crosses Redis.
 */

const redis = testRedis();
const root = mkdtempSync(join(tmpdir(), 'soclab-queue-'));
const children: ChildProcess[] = [];
const EPOCH = '1700000000';
/** What a seeded run promises byte-identical, per mode (compare writes protected unprefixed). */
const PROMISED = ['scorecard.json', 'executive.html', 'technical.html', 'summary.txt'];
const GULLIBLE = join(REPO_ROOT, 'packages', 'soclab', 'test', 'helpers', 'mcp-agents', 'gullible-agent.mjs');
/** A provider key in every process's environment: it must never reach Redis. */
const PROVIDER_KEY = 'sk-o20b-never-in-redis-5c1f0e9a7b';

async function waitFor(what: string, check: () => boolean, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

if (!redis.available && process.env.CI) {
  describe('distributed soclab campaigns (Redis)', () => {
    it('needs Redis in CI', () => {
      throw new Error(`CI=true but no Redis: ${redis.reason}`);
    });
  });
} else if (!redis.available) {
  describe.skip(`distributed soclab campaigns (Redis) — skipped: ${redis.reason}`, () => {
    it('runs on workers', () => {});
  });
} else {
  describe('distributed soclab campaigns (Redis)', () => {
    let url = '';
    beforeAll(async () => {
      // The plain `harness worker` runs the built CLI.
      if (!existsSync(join(REPO_ROOT, 'packages/harness/dist/cli/main.js'))) {
        spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: REPO_ROOT, stdio: 'inherit' });
      }
      url = await redis.start();
    }, 300_000);
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
    });

    it('refuses a --queue that is not a reachable Redis with exit 2, before anything runs', async () => {
      const notRedis = await soclab([
        'campaign',
        '--scenario',
        'ATK-001',
        '--queue',
        'http://127.0.0.1:1',
        '--out',
        join(root, 'bad1'),
      ]);
      expect(notRedis.code).toBe(2);
      expect(notRedis.stderr).toContain('--queue expects a redis:// or rediss:// URL');
      const down = await soclab([
        'campaign',
        '--scenario',
        'ATK-001',
        '--queue',
        'redis://:hunter2pass@127.0.0.1:1',
        '--out',
        join(root, 'bad2'),
      ]);
      expect(down.code).toBe(2);
      expect(down.stderr).toContain('cannot reach Redis at redis://:***@127.0.0.1:1');
      expect(down.stderr).not.toContain('hunter2pass');
      const worker = await soclab(['worker', '--queue', 'ftp://127.0.0.1:1']);
      expect(worker.code).toBe(2);
      expect(worker.stderr).toContain('--queue expects a redis:// or rediss:// URL');
    }, 120_000);

    it('a seeded compare on 2 workers writes the same scorecards and reports, byte for byte, as the local run', async () => {
      const env = { SOURCE_DATE_EPOCH: EPOCH, OPENAI_API_KEY: PROVIDER_KEY };
      const evidence = join(root, 'worker-evidence');
      const workers = [1, 2].map(() => startSoclabWorker(url, env, children, ['--evidence-dir', evidence]));
      // A plain `harness worker` on the same Redis leaves soclab campaigns alone (they name their runner).
      const harness = startNode(
        [join(REPO_ROOT, 'packages/harness/bin/harness.js'), 'worker', '--queue', url],
        env,
        children,
      );
      await waitFor('the workers to connect', () =>
        [...workers, harness].every((w) => w.said.includes('waiting for runs')),
      );
      const args = ['compare', '--scenario', 'ATK-001,BEN-001', '--repeats', '2', '--seed', '11'];
      const [local, queued] = [join(root, 'local'), join(root, 'queued')];
      const a = await soclab([...args, '--out', local], env);
      expect([0, 1], a.stderr).toContain(a.code);
      const watch = await monitorRedis(url);
      const b = await soclab([...args, '--out', queued, '--queue', url], env);
      watch.stop();
      const failures = ['baseline', 'protected'].flatMap((mode) =>
        journal(join(queued, mode)).filter((r) => r.status === 'error'),
      );
      expect(
        failures.map((r) => `${r.test_id}#${r.repeat}: ${r.output.error}`),
        b.stderr,
      ).toEqual([]);
      expect(b.code, b.stderr).toBe(a.code);
      // Every report file of both modes (scorecards, HTML, summaries) is the same, byte for byte.
      const reports = (dir: string) =>
        readdirSync(dir)
          .filter((f) => statSync(join(dir, f)).isFile())
          .sort();
      expect(reports(queued)).toEqual(reports(local));
      for (const file of PROMISED.flatMap((f) => [f, `baseline-${f}`])) expect(reports(local)).toContain(file);
      for (const file of reports(local)) {
        expect(readFileSync(join(queued, file)).equals(readFileSync(join(local, file))), `${file} differs`).toBe(true);
      }
      // The summary names the output folder, as an absolute path or relative to the working directory.
      const samePaths = (text: string) =>
        text.replaceAll(queued, local).replaceAll(relative(REPO_ROOT, queued), relative(REPO_ROOT, local));
      expect(samePaths(b.stdout)).toBe(a.stdout);
      // It really ran on the workers: every result names the worker that ran it; the local one ran none there.
      const results = ['baseline', 'protected'].flatMap((mode) => journal(join(queued, mode)));
      expect(results.map((r) => `${r.test_id}#${r.repeat}`).sort()).toEqual(
        ['ATK-001#0', 'ATK-001#1', 'BEN-001#0', 'BEN-001#1'].flatMap((k) => [k, k]),
      );
      const names = workers.map((w) => w.said.match(/soclab worker (\S+): connected/)?.[1]);
      expect(results.every((r) => names.includes(r.metadata.worker as string))).toBe(true);
      expect(journal(join(local, 'protected')).some((r) => 'worker' in r.metadata)).toBe(false);
      expect(harness.said).not.toMatch(/joined|cannot process/);
      expect(b.stderr).not.toContain('cannot process');
      // The traffic carried the campaign and its results, never the provider key.
      const traffic = watch.text();
      expect(traffic).toContain('soclab-campaign');
      expect(traffic).toContain('BEN-001');
      expect(traffic).not.toContain(PROVIDER_KEY);
      // Each worker keeps its chains of a seeded campaign in a fresh store of its own.
      expect(existsSync(evidence)).toBe(true);
    }, 240_000);

    it('a worker SIGKILLed mid-scenario is recovered: every scenario × repeat is recorded exactly once; no run token, canary or key in Redis', async () => {
      // An MCP agent that takes a moment to start, so the first worker is surely inside a scenario run when killed.
      const slowAgent = join(root, 'slow-agent.mjs');
      writeFileSync(
        slowAgent,
        `await new Promise((r) => setTimeout(r, 1500));\nawait import(${JSON.stringify(GULLIBLE)});\n`,
      );
      const log = join(root, 'agent.jsonl');
      const env = {
        OPENAI_API_KEY: PROVIDER_KEY,
        SOCLAB_MCP_AGENT_COMMAND: `node ${slowAgent}`,
        SOCLAB_MCP_AGENT_PASS_ENV: 'GULLIBLE_AGENT_LOG',
        GULLIBLE_AGENT_LOG: log,
      };
      const db = join(root, 'kill.sqlite');
      // Short locks so the dead worker's run comes back within seconds; stalls allowed often, since on a loaded
      // machine a live worker can miss a lock renewal too (its run then runs twice, and is still recorded once).
      const lock = ['--lock-duration', '3000', '--stalled-interval', '1000', '--max-stalled', '20'];
      const watch = await monitorRedis(url);
      const first = startSoclabWorker(url, env, children, ['--db', db, ...lock]);
      await waitFor('the first worker to connect', () => first.said.includes('waiting for runs'));
      const out = join(root, 'kill');
      const coordinator = soclab(
        [
          'campaign',
          '--mode',
          'protected',
          '--provider',
          'mcp',
          '--scenario',
          'ATK-001,BEN-001',
          '--repeats',
          '2',
          '--out',
          out,
          '--queue',
          url,
        ],
        env,
      );
      // The agent logs its run token as it starts: the first worker is now mid-scenario.
      await waitFor(
        'a scenario run on the first worker',
        () => existsSync(log) && readFileSync(log, 'utf8').includes('"token"'),
      );
      first.kill('SIGKILL');
      const second = startSoclabWorker(url, env, children, ['--db', db, ...lock]);
      const r = await coordinator;
      watch.stop();
      expect([0, 1], `${r.stderr}\n${second.said}`).toContain(r.code);
      const results = journal(join(out, 'protected'));
      const keys = results.map((x) => `${x.test_id}#${x.repeat}`);
      expect(keys.sort()).toEqual(['ATK-001#0', 'ATK-001#1', 'BEN-001#0', 'BEN-001#1']);
      expect(results.filter((x) => x.status === 'error' || x.output.error !== null)).toEqual([]);
      // The killed worker's scenario run was taken over after its lock expired, by the second worker.
      expect(results.some((x) => Number(x.metadata.recovered_from_stalled ?? 0) >= 1)).toBe(true);
      const secondName = second.said.match(/soclab worker (\S+): connected/)?.[1];
      expect(results.every((x) => x.metadata.worker === secondName)).toBe(true);
      const card = JSON.parse(readFileSync(join(out, 'protected-scorecard.json'), 'utf8'));
      expect(card.runs).toHaveLength(4);
      // The killed attempt started an agent too: more run tokens than recorded runs.
      const tokens = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .flatMap((l) => {
          const e = JSON.parse(l) as { token?: unknown };
          return typeof e.token === 'string' ? [e.token] : [];
        });
      expect(tokens.length).toBeGreaterThan(4);
      const traffic = watch.text();
      expect(traffic).toContain('ATK-001');
      for (const token of tokens) expect(traffic.includes(token)).toBe(false);
      expect(traffic).not.toContain(PROVIDER_KEY);
      expect(traffic).not.toMatch(/CANARY-SECRET-\d{3}-[0-9a-f]{12}/);
      // The agent command is the worker's own setting: it never travels through Redis.
      expect(traffic).not.toContain(slowAgent);
    }, 240_000);
  });
}
