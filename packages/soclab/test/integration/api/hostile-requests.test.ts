/**
 * Hostile requests that are not about the body: ambiguous credentials (two Authorization headers) and a token put
 * where it does not belong (the query string), against real servers on 127.0.0.1.
 */

import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectNoCanary, startServer, TOKENS, tempDir, until } from '../../helpers/api.js';
import { startServe, stopProcess } from '../../helpers/serve.js';

/** One request with headers exactly as given: an array value is sent as that many header lines. */
function rawGet(base: string, path: string, headers: Record<string, string | string[]>) {
  const url = new URL(base);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('soclab API: ambiguous credentials', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses a request with two Authorization headers, whichever one is valid', async () => {
    // Node keeps the first Authorization header and drops the rest; a proxy in front may read another one.
    // Two credentials are ambiguous, so neither is used: 401, as without a token.
    const bearer = (t: string) => `Bearer ${t}`;
    for (const pair of [
      [bearer(TOKENS.admin), bearer('not-a-token-0123456789')],
      [bearer('not-a-token-0123456789'), bearer(TOKENS.admin)],
      [bearer(TOKENS.viewer), bearer(TOKENS.admin)],
      [bearer(TOKENS.admin), bearer(TOKENS.admin)],
      [bearer(TOKENS.admin), ''],
    ]) {
      const r = await rawGet(server.base, '/api/v1/version', { authorization: pair });
      expect(r.status, JSON.stringify(pair)).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'unauthenticated' });
      expect(r.body).not.toContain(TOKENS.admin);
    }
    // One header still works, in any scheme case and with surrounding blanks.
    for (const value of [bearer(TOKENS.admin), `bearer  ${TOKENS.admin} `, `BEARER\t${TOKENS.admin}`]) {
      expect((await rawGet(server.base, '/api/v1/version', { authorization: value })).status, value).toBe(200);
    }
  });
});

describe('soclab API: canary values a client writes into a campaign', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('are redacted in every campaign view: the 202, the list, one campaign and the cancel answer', async () => {
    // A canary copied into the free-text note (or the model label) is served back to every reader of the list.
    const note = 'copied from a baseline run: CANARY-SECRET-note-0001';
    const created = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human', approval_timeout_seconds: 120, note },
    });
    expect(created.status).toBe(202);
    expectNoCanary(created.text);
    expect(created.body.request.note).toBe('copied from a baseline run: [REDACTED]');
    const id = created.body.campaign_id;
    for (const path of ['/api/v1/campaigns', '/api/v1/campaigns?status=running', `/api/v1/campaigns/${id}`]) {
      const r = await call(server.base, 'GET', path, { as: 'viewer' });
      expect(r.status, path).toBe(200);
      expectNoCanary(r.text);
    }
    // Running, waiting for a person: the cancel answers with the campaign view too.
    await until(async () => {
      const r = await call(server.base, 'GET', '/api/v1/approvals', { as: 'viewer' });
      return r.body.length > 0 ? true : undefined;
    }, 'the approval request');
    const cancelled = await call(server.base, 'DELETE', `/api/v1/campaigns/${id}`, { as: 'operator' });
    expect(cancelled.status).toBe(200);
    expectNoCanary(cancelled.text);
  });

  it("are redacted in an approver's reason, in the decision's answer and in the history", async () => {
    const created = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human', approval_timeout_seconds: 120 },
    });
    const id = created.body.campaign_id;
    const pending = await until(async () => {
      const r = await call(server.base, 'GET', `/api/v1/approvals?campaign_id=${id}`, { as: 'viewer' });
      return r.body.length > 0 ? r.body[0] : undefined;
    }, 'the approval request');
    const decided = await call(server.base, 'POST', `/api/v1/approvals/${pending.approval_id}/decision`, {
      as: 'approver',
      body: { decision: 'rejected', reason: 'the agent read CANARY-SECRET-reason-0002 first' },
    });
    expect(decided.status).toBe(200);
    expectNoCanary(decided.text);
    expect(decided.body.reason).toBe('the agent read [REDACTED] first');
    const history = await call(server.base, 'GET', `/api/v1/approvals/history?campaign_id=${id}`, { as: 'viewer' });
    expect(history.body).toHaveLength(1);
    expectNoCanary(history.text);
  });
});

describe('soclab serve --log: a token in the query string', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('is refused and never written to the request log', async () => {
    const dataDir = tempDir('soclab-log-');
    dirs.push(dataDir);
    const served = await startServe(['--log', '--data-dir', dataDir], {
      SOCLAB_API_TOKENS: `ops:operator:${TOKENS.operator},admin:admin:${TOKENS.admin}`,
      SOCLAB_DATABASE_URL: '',
    });
    try {
      for (const path of [
        `/api/v1/version?access_token=${TOKENS.admin}`,
        `/api/v1/runs?token=${TOKENS.admin}&limit=1`,
        `/nowhere?token=${TOKENS.admin}`,
      ]) {
        const r = await rawGet(served.base, path, {});
        expect(r.status, path).toBeGreaterThanOrEqual(400);
        expect(r.body, path).not.toContain(TOKENS.admin);
      }
      // A valid request is logged (method and path), so the log is on and the check below means something.
      expect(
        (await rawGet(served.base, '/api/v1/version', { authorization: `Bearer ${TOKENS.operator}` })).status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect(served.stderr()).toContain('/api/v1/version');
    } finally {
      await stopProcess(served.proc);
    }
    expect(served.stderr()).not.toContain(TOKENS.admin);
    expect(served.stderr()).not.toContain(TOKENS.operator);
  }, 90_000);
});
