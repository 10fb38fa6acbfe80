/**
 * `soclab serve` with `queue_url` (SOCLAB_QUEUE_URL): the API coordinates campaigns and real `soclab worker`
 * processes (the CLI from source) run their scenario runs on a real redis-server (HARNESS_TEST_REDIS_URL, or a
 * throwaway one), writing to the server's store (its SQLite file, or PostgreSQL when HARNESS_TEST_PG_URL is set).
 * A seeded campaign started through the API gives the same scorecard as the same campaign on a server without a
 * queue; nothing secret is ever in Redis; a worker SIGKILLed mid-scenario loses and doubles nothing, its attempt's
 * chain is closed with run.interrupted, the re-run gets a chain of its own, and every chain verifies.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis } from '../../../../harness/test/integration/scale/redis-server.js';
import { call, expectNoCanary, type Json, TOKENS, tempDir, until } from '../../helpers/api.js';
import { REPO_ROOT, soclabIsolated as soclab } from '../../helpers/cli.js';
import { ownDatabase, PG_URL } from '../../helpers/postgres.js';
import { journal, monitorRedis, type SaidProcess, startSoclab, startSoclabWorker } from '../../helpers/queue.js';

const redis = testRedis();
const root = tempDir('soclab-serve-queue-');
const children: ChildProcess[] = [];
const EPOCH = '1700000000';
/** A provider key in every process's environment: it must never reach Redis. */
const PROVIDER_KEY = 'sk-r20-never-in-redis-8d2e4f6a1c';
const TOKEN_ENV = `ops:operator:${TOKENS.operator},viewer:viewer:${TOKENS.viewer}`;
const GULLIBLE = join(REPO_ROOT, 'packages', 'soclab', 'test', 'helpers', 'mcp-agents', 'gullible-agent.mjs');
const CAMPAIGN = { mode: 'protected', scenario_ids: ['ATK-001', 'BEN-001'], repeats: 2 };
/** An MCP agent that takes a moment to start, so a worker is surely inside a scenario run when it is killed. */
const slowAgent = join(root, 'slow-agent.mjs');
const log = join(root, 'agent.jsonl');
const MCP_ENV = {
  SOCLAB_MCP_AGENT_COMMAND: `node ${slowAgent}`,
  SOCLAB_MCP_AGENT_PASS_ENV: 'GULLIBLE_AGENT_LOG',
  GULLIBLE_AGENT_LOG: log,
};

type Proc = SaidProcess;

/** `soclab <args>` from source, stdout read too (serve prints its URL there). */
const start = (args: string[], env: Record<string, string>): Proc =>
  startSoclab(args, env, children, { readStdout: true });

/** `soclab serve` on an ephemeral port; resolves with its URL (the first stdout line). */
async function serve(dataDir: string, env: Record<string, string>): Promise<{ proc: Proc; base: string }> {
  const proc = start(['serve', '--port', '0', '--data-dir', dataDir], {
    SOCLAB_API_TOKENS: TOKEN_ENV,
    SOURCE_DATE_EPOCH: EPOCH,
    ...env,
  });
  const base = await until(
    async () => {
      if (proc.exitCode !== null) throw new Error(`soclab serve exited with ${proc.exitCode}: ${proc.said}`);
      return proc.said.match(/^(http:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
    },
    'soclab serve to listen',
    120_000,
  );
  return { proc, base };
}

const worker = (url: string, env: Record<string, string>, ...args: string[]): Proc =>
  startSoclabWorker(url, env, children, args, { readStdout: true });

const stop = (proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('close', () => resolve());
    proc.kill(signal);
  });

async function finishedCampaign(base: string, id: string, seen: number[] = []): Promise<Json> {
  return until(
    async () => {
      const r = await call(base, 'GET', `/api/v1/campaigns/${id}`, { as: 'viewer' });
      seen.push(r.body.progress.done);
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
    },
    `campaign ${id} to finish`,
    180_000,
  );
}

async function scorecardText(base: string, id: string): Promise<string> {
  const r = await call(base, 'GET', `/api/v1/campaigns/${id}/reports/technical/json`, { as: 'viewer' });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** Every key in Redis with its value, whatever its type. */
async function dumpRedis(url: string): Promise<string> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  try {
    const out: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      let value: unknown;
      if (type === 'string') value = await client.get(key);
      else if (type === 'hash') value = await client.hgetall(key);
      else if (type === 'list') value = await client.lrange(key, 0, -1);
      else if (type === 'set') value = await client.smembers(key);
      else if (type === 'zset') value = await client.zrange(key, '0', '-1', 'WITHSCORES');
      else if (type === 'stream') value = await client.xrange(key, '-', '+');
      out.push(`${key} ${JSON.stringify(value)}`);
    }
    return out.join('\n');
  } finally {
    client.disconnect();
  }
}

function expectNothingSecret(text: string, what: string): void {
  expect(text.length, what).toBeGreaterThan(0);
  expect(text.includes(PROVIDER_KEY), `${what}: the provider key`).toBe(false);
  for (const token of Object.values(TOKENS)) expect(text.includes(token), `${what}: an API token`).toBe(false);
  expectNoCanary(text);
  expect(text, what).not.toMatch(/postgres(ql)?:\/\//);
}

if (!redis.available && process.env.CI) {
  describe('soclab serve with Redis workers', () => {
    it('needs Redis in CI', () => {
      throw new Error(`CI=true but no Redis: ${redis.reason}`);
    });
  });
} else if (!redis.available) {
  describe.skip(`soclab serve with Redis workers — skipped: ${redis.reason}`, () => {
    it('runs API campaigns on workers', () => {});
  });
} else {
  describe(`soclab serve with Redis workers (store: ${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
    let url = '';
    let store = '';
    const database = ownDatabase('soclab_serve_queue');
    const queued = join(root, 'queued');
    let server: { proc: Proc; base: string } | null = null;

    beforeAll(async () => {
      url = await redis.start();
      writeFileSync(
        slowAgent,
        `await new Promise((r) => setTimeout(r, 1500));\nawait import(${JSON.stringify(GULLIBLE)});\n`,
      );
      store = PG_URL ? await database.create() : join(queued, 'soclab.sqlite');
    }, 120_000);
    afterAll(async () => {
      await Promise.all(children.map((c) => stop(c, 'SIGKILL')));
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
    });

    it('refuses a queue_url that is not redis:// or a Redis that does not answer: exit 2 before anything starts', async () => {
      const env = { SOCLAB_API_TOKENS: TOKEN_ENV };
      const notRedis = await soclab(['serve', '--port', '0', '--data-dir', join(root, 'bad1')], {
        ...env,
        SOCLAB_QUEUE_URL: 'http://127.0.0.1:6379',
      });
      expect(notRedis.code, notRedis.stderr).toBe(2);
      expect(notRedis.stderr).toContain('queue_url');
      expect(notRedis.stderr).toContain('redis://');
      const configFile = join(root, 'bad.yaml');
      writeFileSync(configFile, 'queue_url: ftp://127.0.0.1:1\n');
      const inFile = await soclab(
        ['serve', '--port', '0', '--config', configFile, '--data-dir', join(root, 'bad2')],
        env,
      );
      expect(inFile.code, inFile.stderr).toBe(2);
      expect(inFile.stderr).toContain(`${configFile}:1:`);
      expect(inFile.stderr).toContain('queue_url');
      const down = await soclab(['serve', '--port', '0', '--data-dir', join(root, 'bad3')], {
        ...env,
        SOCLAB_QUEUE_URL: 'redis://:hunter2redis@127.0.0.1:1',
      });
      expect(down.code, down.stderr).toBe(2);
      expect(down.stderr).toContain('cannot reach Redis at redis://:***@127.0.0.1:1');
      expect(down.stderr).not.toContain('hunter2redis');
      expect(down.stdout).toBe('');
    }, 120_000);

    it('a seeded campaign started through the API runs on 2 soclab workers and scores byte-identically to a server without a queue', async () => {
      const common = { OPENAI_API_KEY: PROVIDER_KEY, SOURCE_DATE_EPOCH: EPOCH };
      const watch = await monitorRedis(url);
      server = await serve(queued, {
        ...common,
        ...MCP_ENV,
        SOCLAB_QUEUE_URL: url,
        SOCLAB_DATABASE_URL: PG_URL ? store : '',
      });
      const { base } = server;
      expect(server.proc.said).toContain('campaigns run on soclab worker processes');
      const workers = [1, 2].map(() => worker(url, common, '--db', store));
      await until(async () => workers.every((w) => w.said.includes('waiting for runs')) || undefined, 'the workers');

      // Deny by default: no token, no campaign; approver human cannot run on workers, and says why.
      const anonymous = await call(base, 'POST', '/api/v1/campaigns', { body: { ...CAMPAIGN, seed: 11 } });
      expect(anonymous.status).toBe(401);
      const human = await call(base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { ...CAMPAIGN, approver: 'human' },
      });
      expect(human.status, human.text).toBe(400);
      expect(human.text).toContain('approver');
      expect(human.text).toContain('Redis workers');

      const created = await call(base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { ...CAMPAIGN, seed: 11 },
      });
      expect(created.status, created.text).toBe(202);
      const id = created.body.campaign_id as string;
      const done: number[] = [];
      const view = await finishedCampaign(base, id, done);
      expect(view.status, `${view.error}\n${server.proc.said}`).toBe('completed');
      // Progress came back from the workers' results while it ran.
      const total = CAMPAIGN.scenario_ids.length * CAMPAIGN.repeats;
      expect(view.progress).toMatchObject({ total, done: total });
      // It really ran on the workers: each scenario × repeat once, each naming the worker that ran it.
      const results = journal(join(queued, 'campaigns', id));
      expect(results.map((r) => `${r.test_id}#${r.repeat}`).sort()).toEqual([
        'ATK-001#0',
        'ATK-001#1',
        'BEN-001#0',
        'BEN-001#1',
      ]);
      const names = workers.map((w) => w.said.match(/soclab worker (\S+): connected/)?.[1]);
      expect(results.every((r) => names.includes(r.metadata.worker as string))).toBe(true);
      const queuedCard = await scorecardText(base, id);
      watch.stop();

      // The same campaign on a server that runs it itself (its worker thread), own data folder.
      const local = await serve(join(root, 'local'), { ...common, SOCLAB_DATABASE_URL: '' });
      const localCreated = await call(local.base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { ...CAMPAIGN, seed: 11 },
      });
      const localId = localCreated.body.campaign_id as string;
      expect((await finishedCampaign(local.base, localId)).status).toBe('completed');
      const localCard = await scorecardText(local.base, localId);
      await stop(local.proc);
      // Identical but for what names the campaign (its API id) and the time the chains were re-verified.
      const normal = (text: string, campaignId: string) =>
        text.replaceAll(campaignId, '<campaign>').replace(/("verification":\s*\{\s*"at":\s*)"[^"]+"/, '$1"<at>"');
      expect(normal(queuedCard, id)).toBe(normal(localCard, localId));
      const card = JSON.parse(queuedCard);
      // Every chain was written by a worker into the server's store: visible and valid through the API.
      expect(card.chains.all_valid).toBe(true);
      expect(card.chains.runs).toHaveLength(total);
      for (const run of card.chains.runs) {
        const verify = await call(base, 'GET', `/api/v1/runs/${run.run_id}/verify`, { as: 'viewer' });
        expect(verify.body).toMatchObject({ valid: true });
        const events = await call(base, 'GET', `/api/v1/runs/${run.run_id}/events`, { as: 'viewer' });
        expect(events.body.at(-1).event_type).toBe('run.finished');
      }

      // Nothing secret crossed Redis, nor stays there.
      const traffic = watch.text();
      expect(traffic).toContain('soclab-campaign');
      expectNothingSecret(traffic, 'Redis traffic');
      // Each attempt noted its chains (for a recovery to close them); the notes went with the finished campaign.
      expect(traffic).toMatch(/hset soclab:run:\S+:attempts ATK-001#0#0 \{"worker":/i);
      expect(await dumpRedis(url)).not.toContain(':attempts');

      // Cancelling a queued campaign stops it and leaves nothing queued in Redis for the workers.
      const long = await call(base, 'POST', '/api/v1/campaigns', { as: 'operator', body: { repeats: 10 } });
      expect(long.status, long.text).toBe(202);
      const longId = long.body.campaign_id as string;
      await until(async () => {
        const r = await call(base, 'GET', `/api/v1/campaigns/${longId}`, { as: 'viewer' });
        return r.body.progress.done > 0 || undefined;
      }, 'the long campaign to record a result');
      const cancelled = await call(base, 'DELETE', `/api/v1/campaigns/${longId}`, { as: 'operator' });
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expect(cancelled.body.progress.done).toBeLessThan(cancelled.body.progress.total);
      const { Redis } = await import('ioredis');
      const client = new Redis(url);
      try {
        expect(await client.hlen('harness:runs')).toBe(0);
        expect(await client.keys('bull:harness-run-*')).toEqual([]);
      } finally {
        client.disconnect();
      }
      await Promise.all(workers.map((w) => stop(w)));
    }, 420_000);

    it('a worker SIGKILLed mid-scenario: each scenario × repeat once, the dead attempt’s chain closed with run.interrupted, the seeded re-run on a chain of its own, every chain verifies', async () => {
      expect(server, 'the server of the previous test').not.toBeNull();
      const { base } = server!;
      // An MCP agent that takes a moment to start, so the first worker is surely inside a scenario run when killed.
      const env = { OPENAI_API_KEY: PROVIDER_KEY, ...MCP_ENV };
      // Short locks so the dead worker's run comes back within seconds; stalls allowed often (a loaded machine).
      const lock = ['--lock-duration', '3000', '--stalled-interval', '1000', '--max-stalled', '20'];
      const first = worker(url, env, '--db', store, ...lock);
      await until(async () => first.said.includes('waiting for runs') || undefined, 'the first worker');
      const watch = await monitorRedis(url);
      const created = await call(base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { mode: 'protected', provider_id: 'mcp', scenario_ids: ['ATK-001', 'BEN-001'], seed: 23 },
      });
      expect(created.status, created.text).toBe(202);
      const id = created.body.campaign_id as string;
      await until(
        async () => (existsSync(log) && readFileSync(log, 'utf8').includes('"token"')) || undefined,
        'a scenario run on the first worker',
      );
      first.kill('SIGKILL');
      // What Redis holds mid-campaign (the run record, its jobs, the attempt notes): nothing secret.
      const held = await dumpRedis(url);
      expect(held).toContain('soclab-campaign');
      expect(held).toContain(':attempts');
      expectNothingSecret(held, 'Redis keys and values');
      const second = worker(url, env, '--db', store, ...lock);
      const view = await finishedCampaign(base, id);
      expect(view.status, `${view.error}\n${second.said}`).toBe('completed');
      const results = journal(join(queued, 'campaigns', id));
      expect(results.map((r) => `${r.test_id}#${r.repeat}`).sort()).toEqual(['ATK-001#0', 'BEN-001#0']);
      expect(results.filter((r) => r.status === 'error' || r.output.error !== null)).toEqual([]);
      expect(results.some((r) => Number(r.metadata.recovered_from_stalled ?? 0) >= 1)).toBe(true);

      // The dead attempt's chain is closed by the worker that ran the scenario again, once the dead one went silent.
      const interrupted = await until(
        async () => {
          const runs = (await call(base, 'GET', '/api/v1/runs?limit=500', { as: 'viewer' })).body as Json[];
          return runs.some((r) => r.ending === 'interrupted') ? runs : undefined;
        },
        'the abandoned chain to be closed',
        90_000,
      );
      const dead = interrupted.filter((r: Json) => r.ending === 'interrupted');
      expect(dead.length).toBeGreaterThanOrEqual(1);
      const card = JSON.parse(await scorecardText(base, id));
      const recorded = new Set(card.chains.runs.map((r: Json) => r.run_id));
      expect(card.chains.all_valid).toBe(true);
      for (const run of dead) {
        // Not one of the recorded runs: the re-run wrote a chain of its own (attempt in its seeded scope).
        expect(recorded.has(run.run_id)).toBe(false);
        const events = (await call(base, 'GET', `/api/v1/runs/${run.run_id}/events`, { as: 'viewer' })).body as Json[];
        const last = events.at(-1);
        expect(last.event_type).toBe('run.interrupted');
        expect(last.payload.reason).toMatch(/soclab worker \S+ stopped mid-run .* ran again from the start on \S+/);
        expect(events.filter((e) => e.event_type === 'run.interrupted')).toHaveLength(1);
        expect(events.filter((e) => e.event_type === 'run.finished')).toHaveLength(0);
      }
      // No chain of the store is left open; each verifies.
      expect(interrupted.filter((r: Json) => r.ending === 'open')).toEqual([]);
      expect(interrupted.every((r: Json) => r.valid)).toBe(true);
      expect(second.said).toContain('with run.interrupted');
      await stop(server!.proc);
      const verified = await soclab(['verify-chain', '--db', store]);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      watch.stop();
      const tokens = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .flatMap((l) => {
          const e = JSON.parse(l) as { token?: unknown };
          return typeof e.token === 'string' ? [e.token] : [];
        });
      const traffic = watch.text();
      for (const token of tokens) expect(traffic.includes(token)).toBe(false);
      expectNothingSecret(traffic, 'Redis traffic');
      expect(traffic).not.toContain(slowAgent);
      await stop(second);
    }, 420_000);
  });
}
