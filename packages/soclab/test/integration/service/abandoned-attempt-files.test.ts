/**
 * A seeded `soclab campaign --queue` without `--db`: each `soclab worker` keeps the campaign's chains in a file of
 * its own (`<evidence dir>/<campaign id>/<worker>.sqlite`). When one is SIGKILLed mid-scenario, the worker that runs
 * the scenario again on the same machine finds the dead worker's file, closes the abandoned chain there with
 * `run.interrupted`, and writes its own attempt under another run id into its own file. Real redis-server
 * (HARNESS_TEST_REDIS_URL, or a throwaway one) and real worker processes (the CLI from source).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis } from '../../../../harness/test/integration/scale/redis-server.js';
import { REPO_ROOT, soclabIsolated as soclab } from '../../helpers/cli.js';
import { startSoclabWorker } from '../../helpers/queue.js';

const redis = testRedis();
const root = mkdtempSync(join(tmpdir(), 'soclab-abandoned-'));
const children: ChildProcess[] = [];
const GULLIBLE = join(REPO_ROOT, 'packages', 'soclab', 'test', 'helpers', 'mcp-agents', 'gullible-agent.mjs');

async function waitFor<T>(what: string, probe: () => T | undefined | false, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Each chain of a SQLite evidence file: its event types in order. */
function chainsOf(file: string): Map<string, { type: string; payload: Record<string, unknown> }[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('select run_id, event_type, payload from audit_events order by run_id, sequence').all() as {
      run_id: string;
      event_type: string;
      payload: string;
    }[];
    const out = new Map<string, { type: string; payload: Record<string, unknown> }[]>();
    for (const r of rows) {
      const list = out.get(r.run_id) ?? [];
      list.push({ type: r.event_type, payload: JSON.parse(r.payload) });
      out.set(r.run_id, list);
    }
    return out;
  } finally {
    db.close();
  }
}

if (!redis.available && process.env.CI) {
  describe('abandoned attempts in per-worker evidence files (Redis)', () => {
    it('needs Redis in CI', () => {
      throw new Error(`CI=true but no Redis: ${redis.reason}`);
    });
  });
} else if (!redis.available) {
  describe.skip(`abandoned attempts in per-worker evidence files (Redis) — skipped: ${redis.reason}`, () => {
    it('closes the dead worker’s chain', () => {});
  });
} else {
  describe('abandoned attempts in per-worker evidence files (Redis)', () => {
    let url = '';
    beforeAll(async () => {
      url = await redis.start();
    }, 120_000);
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
    });

    it('the worker that re-runs a dead one’s seeded scenario closes its chain in the dead worker’s own file and writes its own under another run id', async () => {
      const slowAgent = join(root, 'slow-agent.mjs');
      writeFileSync(
        slowAgent,
        `await new Promise((r) => setTimeout(r, 1500));\nawait import(${JSON.stringify(GULLIBLE)});\n`,
      );
      const log = join(root, 'agent.jsonl');
      const env = {
        SOURCE_DATE_EPOCH: '1700000000',
        SOCLAB_MCP_AGENT_COMMAND: `node ${slowAgent}`,
        SOCLAB_MCP_AGENT_PASS_ENV: 'GULLIBLE_AGENT_LOG',
        GULLIBLE_AGENT_LOG: log,
      };
      const evidence = join(root, 'evidence');
      const lock = ['--lock-duration', '3000', '--stalled-interval', '1000', '--max-stalled', '20'];
      const first = startSoclabWorker(url, env, children, ['--evidence-dir', evidence, ...lock]);
      await waitFor('the first worker', () => first.said.includes('waiting for runs'));
      const firstName = first.said.match(/soclab worker (\S+): connected/)![1]!;
      const out = join(root, 'campaign');
      const coordinator = soclab(
        ['campaign', '--provider', 'mcp', '--scenario', 'BEN-001', '--seed', '5', '--out', out, '--queue', url],
        env,
      );
      await waitFor(
        'a scenario run on the first worker',
        () => existsSync(log) && readFileSync(log, 'utf8').includes('"token"'),
      );
      first.kill('SIGKILL');
      const second = startSoclabWorker(url, env, children, ['--evidence-dir', evidence, ...lock]);
      const r = await coordinator;
      expect([0, 1], `${r.stderr}\n${second.said}`).toContain(r.code);
      const secondName = second.said.match(/soclab worker (\S+): connected/)![1]!;

      // One file per worker under the campaign's folder.
      const [campaignDir] = readdirSync(evidence);
      const fileOf = (name: string) => join(evidence, campaignDir!, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.sqlite`);
      expect(existsSync(fileOf(firstName))).toBe(true);
      expect(existsSync(fileOf(secondName))).toBe(true);
      // The dead worker's chain is closed in its own file (after its heartbeat went stale), naming both workers.
      const dead = await waitFor('the dead attempt to be closed', () => {
        const chains = [...chainsOf(fileOf(firstName)).entries()];
        return chains.length > 0 && chains.every(([, events]) => events.at(-1)?.type === 'run.interrupted')
          ? chains
          : undefined;
      }).catch((error: Error) => {
        throw new Error(`${error.message}; the second worker said:\n${second.said}`);
      });
      expect(dead).toHaveLength(1);
      const [deadRunId, deadEvents] = dead[0]!;
      expect(deadEvents[0]!.type).toBe('run.started');
      expect(String(deadEvents.at(-1)!.payload.reason)).toContain(
        `the soclab worker ${firstName} stopped mid-run (its job lock expired); scenario BEN-001 repeat 0 ran again from the start on ${secondName}`,
      );
      // The re-run is a chain of its own in the second worker's file, finished, under another run id.
      const rerun = [...chainsOf(fileOf(secondName)).entries()];
      expect(rerun).toHaveLength(1);
      expect(rerun[0]![0]).not.toBe(deadRunId);
      expect(rerun[0]![1].at(-1)!.type).toBe('run.finished');
      expect(rerun[0]![1].some((e) => e.type === 'run.interrupted')).toBe(false);
      // The worker says so after it wrote the event, so its log line can come a moment after the file shows it.
      await waitFor('the second worker to say it closed the dead attempt', () =>
        second.said.includes('with run.interrupted'),
      );
      for (const name of [firstName, secondName]) {
        const verified = await soclab(['verify-chain', '--db', fileOf(name)]);
        expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      }
    }, 240_000);
  });
}
