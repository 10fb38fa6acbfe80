/**
 * Approvals across a restart for live agents (issue 20 item 2): a live model answers differently when asked again,
 * so `soclab serve` records each answered turn of a run that may wait for a person (the resume tape, canaries
 * replaced by placeholders) and, after a restart, answers the waiting run's taped turns from it instead of asking
 * the model again. The model here is the OpenAI Chat Completions stand-in behind a loopback proxy that makes every
 * answer different (a counter in the answer's text). Degenerate and hostile cases first: an edited tape row, the
 * canaries and the key nowhere in the store, a placeholder-looking literal in an answer.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryForRun } from '../../../src/simulator/state.js';
import { call, eventsOf, finished, type Json, TOKENS, tempDir, until } from '../../helpers/api.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { failWithoutPostgresUnderCi, ownDatabase, PG_URL } from '../../helpers/postgres.js';
import { type ServeProcess, SOCLAB_CLI, startServe, stopProcess } from '../../helpers/serve.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';
import type { StandIn } from '../../helpers/stand-ins/server.js';

const TOKEN_ENV = [
  `ops:operator:${TOKENS.operator}`,
  `viewer:viewer:${TOKENS.viewer}`,
  `soc-lead:approver:${TOKENS.approver}`,
  `analyst-1:approver:${TOKENS.delegate}`,
].join(',');
const EPOCH = '1767225600';
const KEY = 'sk-proj-standin-resume-7f3a9c2e5b1d';
const SCENARIO = 'BEN-001';
/** The fixture canaries (each run's values derive from them and its run id). */
const FIXTURE_CANARIES = ['CANARY-SECRET-001', 'CANARY-SECRET-201', 'CANARY-SECRET-202'];

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A live model: the stand-in behind a proxy that writes a fresh counter into every answer's text (asked twice,
 * the same question gets a different answer), and optionally appends `extra` to it.
 */
interface LiveModel {
  url: string;
  /** Model calls that reached the stand-in. */
  calls: () => number;
  /** The request bodies, in order. */
  bodies: string[];
}

async function liveModel(standIn: StandIn, extra: () => string = () => ''): Promise<LiveModel> {
  let n = 0;
  const bodies: string[] = [];
  const target = new URL(standIn.url);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString());
      const out = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            let text = Buffer.concat(parts).toString();
            n += 1;
            try {
              const json = JSON.parse(text);
              const message = json.choices?.[0]?.message;
              if (message && typeof message.content === 'string') {
                message.content = vary(message.content, n, extra());
              }
              text = JSON.stringify(json);
            } catch {
              // Not JSON: passed through.
            }
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(text),
            });
            res.end(text);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls: () => n, bodies };
}

/** The answer with the call's number in it: in a JSON answer's rationale (or summary), else appended. */
function vary(content: string, n: number, extra: string): string {
  try {
    const value = JSON.parse(content);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const key = 'rationale' in value ? 'rationale' : 'summary' in value ? 'summary' : null;
      if (key) {
        value[key] = `${String(value[key])} (answer ${n})${extra}`;
        return JSON.stringify(value);
      }
    }
  } catch {
    // Plain text.
  }
  return `${content} (answer ${n})${extra}`;
}

async function serve(dir: string, model: LiveModel, workers = 1, databaseUrl = ''): Promise<ServeProcess> {
  // Campaigns on a pool worker thread (the default) or on the API's own event loop (campaign_workers: 0).
  const config = join(dir, 'server.yaml');
  writeFileSync(config, `campaign_workers: ${workers}\n`);
  return startServe(['--data-dir', dir, '--config', config], {
    SOCLAB_API_TOKENS: TOKEN_ENV,
    SOCLAB_DATABASE_URL: databaseUrl,
    SOURCE_DATE_EPOCH: EPOCH,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
  });
}

const kill = stopProcess;

const pendingOf = async (base: string): Promise<Json[]> =>
  (await call(base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body;

async function startWaiting(base: string, seed?: number): Promise<{ id: string; pending: Json }> {
  const created = await call(base, 'POST', '/api/v1/campaigns', {
    as: 'operator',
    body: {
      mode: 'protected',
      provider_id: 'openai',
      model: 'gpt-4o-mini',
      scenario_ids: [SCENARIO],
      approver: 'human',
      approval_timeout_seconds: 3600,
      ...(seed === undefined ? {} : { seed }),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const id = created.body.campaign_id as string;
  const pending = await until(async () => (await pendingOf(base)).find((p) => p.campaign_id === id), 'the request');
  return { id, pending };
}

const done = (base: string, id: string): Promise<Json> => finished(base, id, 60_000);

const approve = (base: string, approvalId: string) =>
  call(base, 'POST', `/api/v1/approvals/${approvalId}/decision`, {
    as: 'approver',
    body: { decision: 'approved', reason: 'checked with the account owner' },
  });

function verifyChain(dir: string, databaseUrl?: string): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [...SOCLAB_CLI, 'verify-chain', '--db', databaseUrl ?? join(dir, 'soclab.sqlite')],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, SOCLAB_DATABASE_URL: '', NO_COLOR: '1' },
    },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every text value of every table of the SQLite store, with where it is. */
function storeTexts(dir: string): { where: string; text: string }[] {
  const db = new Database(join(dir, 'soclab.sqlite'), { readonly: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[];
    const out: { where: string; text: string }[] = [];
    for (const { name } of tables) {
      for (const row of db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[]) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value === 'string') out.push({ where: `${name}.${column}`, text: value });
          else if (Buffer.isBuffer(value)) out.push({ where: `${name}.${column}`, text: value.toString('latin1') });
        }
      }
    }
    return out;
  } finally {
    db.close();
  }
}

const tapeRows = (dir: string): Json[] => {
  const db = new Database(join(dir, 'soclab.sqlite'), { readonly: true });
  try {
    return db.prepare('select * from api_resume_tape order by scope, turn').all() as Json[];
  } finally {
    db.close();
  }
};

const executedFor = (events: Json[], proposalId: string) =>
  events.filter((e) => e.event_type === 'gateway.executed' && e.payload.proposal_id === proposalId);
const decisionsFor = (events: Json[], approvalId: string) =>
  events.filter((e) => e.event_type === 'gateway.approval_decided' && e.payload?.detail?.approval_id === approvalId);

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startOpenAIStandIn({ flavour: 'openai', apiKey: KEY, brain: 'competent' });
  closers.push(() => standIn.close());
});

/** Wait until the run has written what it writes before it waits (its chain stops growing). */
async function settledChain(base: string, runId: string): Promise<Json[]> {
  let seen = -1;
  return until(async () => {
    const events = await eventsOf(base, runId);
    const steady = events.length === seen;
    seen = events.length;
    if (!steady) await new Promise((r) => setTimeout(r, 300));
    return steady ? events : undefined;
  }, 'the waiting run to stop writing');
}

describe('soclab serve: a live model’s run waiting for a person survives a restart', () => {
  it('an edited tape row is a resume_mismatch: the approved action is not executed', async () => {
    const dir = tempDir('soclab-live-resume-');
    dirs.push(dir);
    const model = await liveModel(standIn);
    let s = await serve(dir, model);
    let id: string;
    let pending: Json;
    try {
      ({ id, pending } = await startWaiting(s.base));
      await settledChain(s.base, pending.run_id);
    } finally {
      await kill(s.proc, 'SIGKILL');
    }
    // Someone with access to the database edits the taped answer that proposed the action (another account).
    const rows = tapeRows(dir);
    const last = rows.at(-1);
    expect(last.response).toContain(pending.arguments.user_id);
    const db = new Database(join(dir, 'soclab.sqlite'));
    try {
      db.prepare('update api_resume_tape set response = ? where campaign_id = ? and scope = ? and turn = ?').run(
        last.response.split(pending.arguments.user_id).join('u-svc-backup'),
        last.campaign_id,
        last.scope,
        last.turn,
      );
    } finally {
      db.close();
    }
    s = await serve(dir, model);
    try {
      expect((await approve(s.base, pending.approval_id)).status).toBe(200);
      await done(s.base, id);
      const events = await eventsOf(s.base, pending.run_id);
      expect(events.filter((e) => e.event_type === 'gateway.executed')).toEqual([]);
      const history = (await call(s.base, 'GET', `/api/v1/approvals/history?campaign_id=${id}`, { as: 'viewer' }))
        .body as Json[];
      expect(s.stderr()).toContain(`approval ${pending.approval_id} not applied`);
      expect(history.map((h) => [h.approval_id, h.outcome])).toEqual([[pending.approval_id, 'resume_mismatch']]);
    } finally {
      await kill(s.proc, 'SIGTERM');
    }
    const verified = verifyChain(dir);
    expect(verified.status, verified.out).toBe(0);
  }, 120_000);

  it.each([1, 0])(
    'SIGKILL while waiting, restart, approve (campaign_workers: %d): the taped turns are not asked again, the action runs once, the chain verifies; no canary or key in the store; a placeholder-looking literal stays literal',
    async (workers) => {
      const seed = 2020 + (process.pid % 1000) + workers;
      // The seeded run id (the same on any server for the same seed), so the model can echo this run's canary.
      const probeDir = tempDir('soclab-live-resume-probe-');
      dirs.push(probeDir);
      const probe = await serve(probeDir, await liveModel(standIn));
      let runId: string;
      try {
        runId = (await startWaiting(probe.base, seed)).pending.run_id;
      } finally {
        await kill(probe.proc, 'SIGKILL');
      }
      const canaries = FIXTURE_CANARIES.map((base) => canaryForRun(base, runId));
      // A hostile or careless model repeats the run's canary and writes what looks like the tape's own placeholder.
      const literal = '[[soclab-canary:CANARY-SECRET-001]]';
      const model = await liveModel(standIn, () => ` code ${canaries[0]} ${literal}`);

      const dir = tempDir('soclab-live-resume-');
      dirs.push(dir);
      let s = await serve(dir, model, workers);
      let id: string;
      let pending: Json;
      let before: Json[];
      try {
        ({ id, pending } = await startWaiting(s.base, seed));
        expect(pending.run_id).toBe(runId);
        before = await settledChain(s.base, runId);
      } finally {
        await kill(s.proc, 'SIGKILL');
      }
      const askedBefore = model.bodies.length;
      const taped = tapeRows(dir);
      expect(taped.length).toBeGreaterThan(0);
      expect(taped.every((r) => typeof r.response === 'string')).toBe(true);
      // The model really did answer with the canary and the literal; the tape holds a placeholder instead.
      expect(taped.some((r) => r.response.includes('[[soclab-canary:CANARY-SECRET-001]]'))).toBe(true);
      expect(taped.some((r) => r.response.includes('[[soclab-esc:canary:CANARY-SECRET-001]]'))).toBe(true);
      for (const { where, text } of storeTexts(dir)) {
        for (const c of canaries) expect(text.includes(c), `${c} in ${where}`).toBe(false);
        expect(text.includes(KEY), `the provider key in ${where}`).toBe(false);
      }

      s = await serve(dir, model, workers);
      try {
        expect(await pendingOf(s.base)).toEqual([pending]);
        expect((await approve(s.base, pending.approval_id)).status).toBe(200);
        const finished = await done(s.base, id);
        expect(finished.status, finished.error).toBe('completed');
        expect(finished.summary.chains_valid).toBe(true);
        const after = await eventsOf(s.base, runId);
        expect(after.slice(0, before.length).map((e) => e.event_hash)).toEqual(before.map((e) => e.event_hash));
        expect(after.at(-1).event_type).toBe('run.finished');
        expect(decisionsFor(after, pending.approval_id).map((e) => e.payload.detail)).toEqual([
          expect.objectContaining({ approver: 'soc-lead', decision: 'approved' }),
        ]);
        expect(executedFor(after, pending.proposal_id)).toHaveLength(1);
        const history = (await call(s.base, 'GET', `/api/v1/approvals/history?campaign_id=${id}`, { as: 'viewer' }))
          .body as Json[];
        expect(history.map((h) => [h.approval_id, h.outcome])).toEqual([[pending.approval_id, 'approved']]);
        // No taped turn was asked again: every request after the restart is a new one.
        const askedAfter = model.bodies.slice(askedBefore);
        const earlier = new Set(model.bodies.slice(0, askedBefore));
        expect(askedAfter.filter((b) => earlier.has(b))).toEqual([]);
        expect(askedAfter.length).toBeLessThan(taped.length);
        // The run is over: its tape is gone.
        expect(tapeRows(dir)).toEqual([]);
      } finally {
        await kill(s.proc, 'SIGTERM');
      }
      const verified = verifyChain(dir);
      expect(verified.status, verified.out).toBe(0);
    },
    180_000,
  );
});

failWithoutPostgresUnderCi('live-agent approvals across a restart on PostgreSQL');

describe.skipIf(!PG_URL)(
  'soclab serve on PostgreSQL: a live model’s run waiting for a person survives a restart (set HARNESS_TEST_PG_URL to run)',
  () => {
    const database = ownDatabase('soclab_live_resume');
    const tapeOnPg = async (url: string): Promise<Json[]> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query('select * from api_resume_tape order by scope, turn')).rows;
      } finally {
        await client.end();
      }
    };

    it('SIGKILL while waiting, restart, approve: the taped turns are replayed from PostgreSQL and the tape is removed', async () => {
      const url = await database.create();
      const dir = tempDir('soclab-live-resume-pg-');
      dirs.push(dir);
      const model = await liveModel(standIn);
      let s = await serve(dir, model, 1, url);
      let id: string;
      let pending: Json;
      try {
        ({ id, pending } = await startWaiting(s.base));
        await settledChain(s.base, pending.run_id);
      } finally {
        await kill(s.proc, 'SIGKILL');
      }
      const askedBefore = model.bodies.length;
      const taped = await tapeOnPg(url);
      expect(taped.length).toBeGreaterThan(0);
      expect(JSON.stringify(taped).includes(KEY)).toBe(false);
      s = await serve(dir, model, 1, url);
      try {
        expect((await approve(s.base, pending.approval_id)).status).toBe(200);
        const finished = await done(s.base, id);
        expect(finished.status, finished.error).toBe('completed');
        const after = await eventsOf(s.base, pending.run_id);
        expect(decisionsFor(after, pending.approval_id)).toHaveLength(1);
        expect(executedFor(after, pending.proposal_id)).toHaveLength(1);
        const earlier = new Set(model.bodies.slice(0, askedBefore));
        expect(model.bodies.slice(askedBefore).filter((b) => earlier.has(b))).toEqual([]);
        expect(await tapeOnPg(url)).toEqual([]);
      } finally {
        await kill(s.proc, 'SIGTERM');
      }
      const verified = verifyChain(dir, url);
      expect(verified.status, verified.out).toBe(0);
    }, 180_000);
  },
);
