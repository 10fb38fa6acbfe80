/**
 * Served reports re-verify the evidence: after one stored row of a run is edited (or the end of a chain removed),
 * the executive and technical reports and the JSON scorecard say which chain failed and when it was checked,
 * agreeing with `/runs/{id}/verify`, instead of repeating the verdict recorded when the runs ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainStatusText } from '../../../src/reports/chain-status.js';
import { call, finished, type Json, startServer } from '../../helpers/api.js';

type Server = Awaited<ReturnType<typeof startServer>>;

describe('served reports re-verify the evidence chains', () => {
  let server: Server;
  let campaignId: string;
  let runs: Json[];
  beforeAll(async () => {
    server = await startServer();
    const created = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'baseline', scenario_ids: ['BEN-002', 'ATK-001', 'ATK-005'] },
    });
    campaignId = created.body.campaign_id;
    expect((await finished(server.base, campaignId)).status).toBe('completed');
    runs = (await call(server.base, 'GET', `/api/v1/runs?campaign_id=${campaignId}`, { as: 'viewer' })).body;
  });
  afterAll(async () => {
    await server?.close();
  });

  const executive = async () =>
    (await call(server.base, 'GET', `/api/v1/campaigns/${campaignId}/reports/executive`, { as: 'viewer' })).text;
  const scorecard = async () =>
    JSON.parse(
      (await call(server.base, 'GET', `/api/v1/campaigns/${campaignId}/reports/executive/json`, { as: 'viewer' })).text,
    );

  it('a report rebuilt from stored data without re-verifying says so', () => {
    const chains = {
      all_valid: true,
      runs: [
        {
          scenario_id: 'BEN-001',
          repeat: 1,
          run_id: 'r1',
          valid: true,
          length: 3,
          root_hash: 'ab',
          first_invalid_sequence: null,
          reason: null,
        },
      ],
      verification: { how: 'run_end' as const, at: '2026-01-02T03:04:05.000Z' },
    };
    expect(chainStatusText(chains)).toBe(
      'All 1 evidence chains verified when the runs ended at 2026-01-02T03:04:05.000Z; not re-verified since.',
    );
    expect(chainStatusText({ ...chains, verification: undefined })).toMatch(/not re-verified since\.$/);
  });

  it('an untouched store: every chain verified, with the time of the re-verification', async () => {
    expect(runs).toHaveLength(3);
    const before = Date.now();
    const card = await scorecard();
    expect(card.chains.all_valid).toBe(true);
    expect(card.chains.verification.how).toBe('reverified');
    expect(Date.parse(card.chains.verification.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await executive()).toContain(
      `All 3 evidence chains verified, re-verified against the evidence store at ${card.chains.verification.at.slice(0, 16)}`,
    );
  });

  it('one edited row: the reports name the run and sequence, as /verify does', async () => {
    const target = runs[1].run_id;
    await server.context.evidence.db
      .updateTable('audit_events')
      .set({ payload: '{"edited":true}' })
      .where('run_id', '=', target)
      .where('sequence', '=', 2)
      .execute();
    const verify = await call(server.base, 'GET', `/api/v1/runs/${target}/verify`, { as: 'viewer' });
    expect(verify.body).toMatchObject({ valid: false, first_invalid_sequence: 2 });
    const card = await scorecard();
    expect(card.chains.all_valid).toBe(false);
    expect(card.chains.runs.find((r: Json) => r.run_id === target)).toMatchObject({
      valid: false,
      first_invalid_sequence: 2,
    });
    const html = await executive();
    expect(html).not.toContain('All 3 evidence chains verified');
    expect(html).toContain(`1 of 3 evidence chain(s) failed verification (${target} at sequence 2)`);
    const technical = (
      await call(server.base, 'GET', `/api/v1/campaigns/${campaignId}/reports/technical`, { as: 'viewer' })
    ).text;
    expect(technical).toContain(`${target} at sequence 2`);
  });

  it('a chain cut short at its end (still internally valid) fails against the recorded root hash', async () => {
    const target = runs[2].run_id;
    const length = runs[2].length;
    await server.context.evidence.db
      .deleteFrom('audit_events')
      .where('run_id', '=', target)
      .where('sequence', '=', length)
      .execute();
    expect((await call(server.base, 'GET', `/api/v1/runs/${target}/verify`, { as: 'viewer' })).body.valid).toBe(true);
    const card = await scorecard();
    const row = card.chains.runs.find((r: Json) => r.run_id === target);
    expect(row).toMatchObject({ valid: false, length: length - 1 });
    expect(row.reason).toContain('not at the root hash recorded when the run ended');
    expect(await executive()).toContain(`${target} changed since the run ended`);
  });
});
