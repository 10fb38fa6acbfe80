/**
 * The API with its store on PostgreSQL (`database_url`): a campaign created by POST completes, and a restarted
 * server still has it, its results and its evidence. Each run uses a database of its own.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { call, finished, startServer } from '../../helpers/api.js';
import { failWithoutPostgresUnderCi, ownDatabase, PG_URL } from '../../helpers/postgres.js';

failWithoutPostgresUnderCi('API on PostgreSQL');

describe.skipIf(!PG_URL)('soclab API on PostgreSQL (set HARNESS_TEST_PG_URL to run)', () => {
  const database = ownDatabase('soclab_api');

  it('stores campaigns and evidence in PostgreSQL and keeps them across a restart', async () => {
    const url = await database.create();

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
