/**
 * The API with its store on PostgreSQL (`database_url`): a campaign created by POST completes, and a restarted
 * server still has it, its results and its evidence. Each run uses a database of its own.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { call, finished, startServer } from './helpers.js';

const PG_URL = process.env.HARNESS_TEST_PG_URL;

if (!PG_URL && process.env.CI) {
  it('API on PostgreSQL', () => {
    throw new Error('HARNESS_TEST_PG_URL is not set (CI must provide PostgreSQL)');
  });
}

describe.skipIf(!PG_URL)('soclab API on PostgreSQL (set HARNESS_TEST_PG_URL to run)', () => {
  const name = `soclab_api_${process.pid}_${Date.now()}`;
  let url = '';
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    if (url) await admin((c) => c.query(`drop database if exists ${name} with (force)`));
  });

  it('stores campaigns and evidence in PostgreSQL and keeps them across a restart', async () => {
    await admin((c) => c.query(`create database ${name}`));
    const u = new URL(PG_URL!);
    u.pathname = `/${name}`;
    url = u.toString();

    let server = await startServer({ database_url: url });
    try {
      const me = await call(server.base, 'GET', '/api/v1/version', { as: 'viewer' });
      expect(me.body.store).toBe('postgres');
      const created = await call(server.base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { mode: 'protected', scenario_ids: ['ATK-001', 'ATK-020', 'BEN-003'] },
      });
      expect(created.status).toBe(202);
      const done = await finished(server.base, created.body.campaign_id);
      expect(done.status).toBe('completed');
      expect(done.summary.attack_success.numerator).toBe(0);
      await server.close();

      server = await startServer({ database_url: url });
      const again = await call(server.base, 'GET', `/api/v1/campaigns/${created.body.campaign_id}`, { as: 'viewer' });
      expect(again.body).toMatchObject({ status: 'completed', summary: done.summary });
      const runs = await call(server.base, 'GET', `/api/v1/runs?campaign_id=${created.body.campaign_id}`, {
        as: 'viewer',
      });
      expect(runs.body).toHaveLength(3);
      expect(runs.body.every((r: { valid: boolean }) => r.valid)).toBe(true);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const rows = (await db.query('select count(*)::int as n from api_campaigns')).rows[0].n as number;
      await db.end();
      expect(rows).toBe(1);
    } finally {
      await server.close();
    }
  });
});
