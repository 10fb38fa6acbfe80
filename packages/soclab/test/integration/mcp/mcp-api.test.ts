import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, finished, startServer } from '../../helpers/api.js';
import { REPO_ROOT } from '../../helpers/cli.js';

/*
 * The API equivalent of `soclab campaign --provider mcp`: the agent command comes from the server's own
 * environment; a request can choose the `mcp` provider but never name a command to run.
 */

const COMMAND = `node ${join(REPO_ROOT, 'examples', 'mcp-soc-agent', 'agent.mjs')}`;
let server: Awaited<ReturnType<typeof startServer>>;
let bare: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  // The registry check reads the server's env, the campaign's provider the process's: both carry the command.
  process.env.SOCLAB_MCP_AGENT_COMMAND = COMMAND;
  server = await startServer({}, { env: { SOCLAB_MCP_AGENT_COMMAND: COMMAND } });
  bare = await startServer();
});

afterAll(async () => {
  await server?.close();
  await bare?.close();
  delete process.env.SOCLAB_MCP_AGENT_COMMAND;
});

describe('POST /api/v1/campaigns with provider_id mcp', () => {
  it('runs the configured MCP agent through a protected campaign', async () => {
    const r = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', provider_id: 'mcp', scenario_ids: ['BEN-001', 'ATK-001'] },
    });
    expect(r.status, r.text).toBe(202);
    const done = await finished(server.base, r.body.campaign_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.summary).toMatchObject({ provider: 'mcp', model: 'agent', runs: 2, chains_valid: true, errors: 0 });
    expect(done.summary.attack_success).toMatchObject({ numerator: 0, denominator: 1 });
    // The console's replay walks an MCP run step by step: the agent's calls, each action with its decisions.
    const runs = await call(server.base, 'GET', `/api/v1/runs?campaign_id=${r.body.campaign_id}`, { as: 'viewer' });
    const ben = runs.body.find((x: { scenario_id: string }) => x.scenario_id === 'BEN-001');
    expect(ben).toMatchObject({ valid: true, mode: 'protected' });
    const replay = await call(server.base, 'GET', `/api/v1/runs/${ben.run_id}/replay`, { as: 'viewer' });
    const titles = replay.body.steps.map((s: { title: string }) => s.title);
    expect(titles).toEqual(expect.arrayContaining(['Agent call: get_identity_profile', 'Agent call: submit_finding']));
    const action = replay.body.steps.find(
      (s: { kind: string; data: { tool?: string } }) => s.kind === 'action' && s.data.tool === 'revoke_sessions',
    );
    expect(action.data.policy_decisions[0]).toMatchObject({ outcome: 'require_approval' });
    expect(replay.body.steps.map((s: { kind: string }) => s.kind)).toContain('finding');
  }, 120_000);

  it('refuses a request that names a command, and mcp on a server without a configured agent', async () => {
    const smuggled = await call(server.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { provider_id: 'mcp', agent_command: 'touch /tmp/pwned' },
    });
    expect(smuggled.status).toBe(422);
    expect(smuggled.text).toMatch(/agent_command/);
    const unconfigured = await call(bare.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { provider_id: 'mcp' },
    });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body.message).toMatch(/SOCLAB_MCP_AGENT_COMMAND/);
  });
});
