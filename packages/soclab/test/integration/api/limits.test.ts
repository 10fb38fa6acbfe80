/**
 * Bounded work: cancelling a campaign (DELETE, operator and up; queued ones never start, running ones stop with
 * their evidence kept), the server-wide campaign queue cap (429 + Retry-After) and the PDF render pool (a bounded
 * number of Chromium renders, with a per-token share).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderPool, RenderPoolFullError } from '../../../src/api/render-pool.js';
import { CHROMIUM, call, finished, type Json, startServer, until } from '../../helpers/api.js';

type Server = Awaited<ReturnType<typeof startServer>>;

/** A campaign whose only run waits for a person (so it stays running until decided or cancelled). */
const WAITING = { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human', approval_timeout_seconds: 600 };
const QUICK = { mode: 'baseline', scenario_ids: ['BEN-002'] };

async function start(base: string, body: object): Promise<Json> {
  const r = await call(base, 'POST', '/api/v1/campaigns', { as: 'operator', body });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body;
}

async function pendingApproval(base: string, campaignId: string): Promise<Json> {
  return until(async () => {
    const r = await call(base, 'GET', `/api/v1/approvals?campaign_id=${campaignId}`, { as: 'viewer' });
    return r.body.length > 0 ? r.body[0] : undefined;
  }, 'the pending approval');
}

describe('soclab API: campaign cancel and queue cap', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({ max_running_campaigns: 1, max_queued_campaigns: 2, retry_after_seconds: 7 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses to cancel what does not exist or has finished, and lets no viewer or approver cancel', async () => {
    const missing = await call(server.base, 'DELETE', '/api/v1/campaigns/00000000-0000-4000-8000-000000000001', {
      as: 'operator',
    });
    expect(missing.status).toBe(404);
    const done = await start(server.base, QUICK);
    expect((await finished(server.base, done.campaign_id)).status).toBe('completed');
    for (const who of ['viewer', 'approver'] as const) {
      const r = await call(server.base, 'DELETE', `/api/v1/campaigns/${done.campaign_id}`, { as: who });
      expect(r.status).toBe(403);
    }
    const again = await call(server.base, 'DELETE', `/api/v1/campaigns/${done.campaign_id}`, { as: 'operator' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already_finished', message: expect.stringContaining('completed') });
    const still = await call(server.base, 'GET', `/api/v1/campaigns/${done.campaign_id}`, { as: 'viewer' });
    expect(still.body.status).toBe('completed');
  });

  it('caps the queue with 429 + Retry-After, cancels a queued campaign before it starts and a running one with its evidence kept', async () => {
    const running = await start(server.base, WAITING);
    const approval = await pendingApproval(server.base, running.campaign_id);
    const queuedA = await start(server.base, QUICK);
    const queuedB = await start(server.base, QUICK);
    expect([queuedA.status, queuedB.status]).toEqual(['queued', 'queued']);

    const refused = await call(server.base, 'POST', '/api/v1/campaigns', { as: 'admin', body: QUICK });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.body).toMatchObject({ code: 'queue_full', message: expect.stringContaining('at most 2') });
    const listed = await call(server.base, 'GET', '/api/v1/campaigns?limit=500', { as: 'viewer' });
    expect(listed.body.filter((c: Json) => c.status === 'queued')).toHaveLength(2);

    // A queued campaign is cancelled where it waits: it never starts, and a place frees up.
    const cancelQueued = await call(server.base, 'DELETE', `/api/v1/campaigns/${queuedA.campaign_id}`, {
      as: 'operator',
    });
    expect(cancelQueued.status).toBe(200);
    expect(cancelQueued.body).toMatchObject({ status: 'cancelled', started_at: null, error: 'cancelled by ops' });
    const accepted = await start(server.base, QUICK);

    // The running one: its waiting run stops, its chain is kept and closed, its request leaves the inbox.
    const before = (await call(server.base, 'GET', `/api/v1/runs/${approval.run_id}/events`, { as: 'viewer' })).body;
    expect(before.length).toBeGreaterThan(1);
    const cancelRunning = await call(server.base, 'DELETE', `/api/v1/campaigns/${running.campaign_id}`, {
      as: 'admin',
    });
    expect(cancelRunning.status).toBe(200);
    expect(cancelRunning.body).toMatchObject({ status: 'cancelled', error: 'cancelled by admin' });
    expect(cancelRunning.body.finished_at).not.toBeNull();
    expect((await call(server.base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body).toEqual([]);
    const runs = (await call(server.base, 'GET', '/api/v1/runs?limit=500', { as: 'viewer' })).body;
    const run = runs.find((r: Json) => r.run_id === approval.run_id);
    expect(run).toMatchObject({ valid: true });
    expect(run.ending).not.toBe('open');
    const after = (await call(server.base, 'GET', `/api/v1/runs/${approval.run_id}/events`, { as: 'viewer' })).body;
    expect(after.slice(0, before.length).map((e: Json) => e.event_hash)).toEqual(before.map((e: Json) => e.event_hash));

    // The queue moves on: the remaining campaigns run to completion; the cancelled queued one never ran.
    expect((await finished(server.base, queuedB.campaign_id)).status).toBe('completed');
    expect((await finished(server.base, accepted.campaign_id)).status).toBe('completed');
    const never = await call(server.base, 'GET', `/api/v1/campaigns/${queuedA.campaign_id}`, { as: 'viewer' });
    expect(never.body).toMatchObject({ status: 'cancelled', started_at: null });
    expect(never.body.progress.done).toBe(0);
  });
});

describe('PDF render pool', () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    return { open, opened };
  };

  it('refuses a second render from the same caller and a caller beyond the waiting line, then serves in order', async () => {
    const pool = new RenderPool({ concurrency: 1, maxWaiting: 1, perKey: 1 });
    const first = gate();
    const order: string[] = [];
    const a = pool.run('token-a', async () => {
      await first.opened;
      order.push('a');
      return 'a';
    });
    await expect(pool.run('token-a', async () => 'again')).rejects.toMatchObject({ reason: 'per_key' });
    const b = pool.run('token-b', async () => {
      order.push('b');
      return 'b';
    });
    expect(pool.load).toEqual({ running: 1, waiting: 1 });
    await expect(pool.run('token-c', async () => 'c')).rejects.toBeInstanceOf(RenderPoolFullError);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(order).toEqual(['a', 'b']);
    expect(pool.load).toEqual({ running: 0, waiting: 0 });
    // A failed render frees its slot and its caller's share.
    await expect(
      pool.run('token-a', async () => {
        throw new Error('chromium crashed');
      }),
    ).rejects.toThrow('chromium crashed');
    expect(await pool.run('token-a', async () => 'ok')).toBe('ok');
  });

  it.skipIf(!CHROMIUM && !process.env.CI)(
    'answers 429 + Retry-After to a token asking for a second PDF while its first renders',
    async () => {
      if (!CHROMIUM) throw new Error('CHROMIUM_PATH is not set: CI must provide Chromium (apt-get install chromium)');
      const server = await startServer({ chromium_path: CHROMIUM, retry_after_seconds: 5 });
      try {
        const done = await start(server.base, QUICK);
        expect((await finished(server.base, done.campaign_id)).status).toBe('completed');
        const path = `/api/v1/campaigns/${done.campaign_id}/reports/executive/pdf`;
        const [one, two] = await Promise.all([
          call(server.base, 'GET', path, { as: 'viewer' }),
          call(server.base, 'GET', path, { as: 'viewer' }),
        ]);
        const statuses = [one.status, two.status].sort();
        expect(statuses).toEqual([200, 429]);
        const refused = one.status === 429 ? one : two;
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(refused.body.code).toBe('pdf_busy');
        // Another token is not held up by the first one's share.
        expect((await call(server.base, 'GET', path, { as: 'operator' })).status).toBe(200);
      } finally {
        await server.close();
      }
    },
  );
});
