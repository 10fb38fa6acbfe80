/**
 * Self-approval through the API under another spelling of the requester's identity: approver tokens named
 * `Analyst-1` and `SOC-Investigator` (the delegated user is `analyst-1`, the agent `soc-investigator`) are refused
 * with 403 and the request stays pending; an unrelated approver then decides it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, TOKENS, until } from '../../helpers/api.js';

type Server = Awaited<ReturnType<typeof startServer>>;

const CASED = {
  analyst: 'cased-analyst-token-0123456789',
  investigator: 'cased-investigator-token-0123456789',
};

describe('self-approval check folds identities', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({
      tokens: [
        { name: 'ops', role: 'operator', token: TOKENS.operator },
        { name: 'viewer', role: 'viewer', token: TOKENS.viewer },
        { name: 'soc-lead', role: 'approver', token: TOKENS.approver },
        { name: 'Analyst-1', role: 'approver', token: CASED.analyst },
        { name: 'SOC-Investigator', role: 'admin', token: CASED.investigator },
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses Analyst-1 and SOC-Investigator, then lets another approver decide', async () => {
    const created = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human', approval_timeout_seconds: 120 },
    });
    expect(created.status).toBe(202);
    const pending = await until(async () => {
      const r = await call(server.base, 'GET', '/api/v1/approvals', { as: 'viewer' });
      return r.body.length > 0 ? r.body[0] : undefined;
    }, 'the approval request');
    expect(pending.requested_by).toEqual({ agent_id: 'soc-investigator', delegated_user_id: 'analyst-1' });
    const path = `/api/v1/approvals/${pending.approval_id}/decision`;
    for (const token of [CASED.analyst, CASED.investigator]) {
      const r = await call(server.base, 'POST', path, {
        headers: { authorization: `Bearer ${token}` },
        body: { decision: 'approved', reason: 'approving my own request' },
      });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'self_approval' });
    }
    expect((await call(server.base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body).toHaveLength(1);
    const ok = await call(server.base, 'POST', path, {
      as: 'approver',
      body: { decision: 'approved', reason: 'confirmed with the account owner' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'approved', approver_id: 'soc-lead' });
  });
});
