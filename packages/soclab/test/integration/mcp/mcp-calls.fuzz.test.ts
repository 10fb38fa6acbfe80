/**
 * Property test of the lab's MCP server on a real loopback socket in front of the protected control plane: whatever
 * a client sends as a `tools/call` (any name, any JSON as arguments or params), the server answers with a JSON-RPC
 * result or error, never a 5xx; every refusal's text starts with its reason code; and nothing ever changes the
 * simulator, because no approval is given (every execution the executor made is a read with a gateway-issued grant).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LabMcpHttpServer, serveLabMcpHttp } from '../../../src/mcp/http.js';
import { McpRunSession, mcpTraceId } from '../../../src/mcp/session.js';
import { createProtectedSession, type ProtectedSession } from '../../../src/modes/protected-session.js';
import { createSimulator, type SimulatorState } from '../../../src/simulator/state.js';
import { fuzzParameters, fuzzTimeout } from '../../helpers/fuzz.js';

const SUITE_RUNS = 150;
let simulator: SimulatorState;
let control: ProtectedSession;
let session: McpRunSession;
let http: LabMcpHttpServer;
const tally = { calls: 0, refused: 0, answered: 0, protocolErrors: 0 };

beforeAll(async () => {
  const runId = randomUUID();
  simulator = createSimulator({ enforceScope: true, runId, injections: ['authority_claim'] });
  control = createProtectedSession({
    simulator,
    runId,
    approvedModels: [['mcp', 'agent']],
    limits: { max_calls: 1_000_000, max_elapsed_seconds: 3600 },
  });
  session = new McpRunSession({
    incidentId: simulator.incidentId,
    alert: simulator.incident,
    port: control.port,
    runId,
    traceId: mcpTraceId(runId),
    providerId: 'mcp',
    model: 'agent',
    // Room for every generated call: the property is about mediation, the limits have their own tests.
    limits: { max_calls: 1_000_000, max_seconds: 3600, max_argument_bytes: 1024 * 1024 },
  });
  http = await serveLabMcpHttp(session);
});

afterAll(async () => {
  await http?.close();
  session?.end('incomplete', 'fuzz over');
  console.info(
    `mcp call fuzz: ${tally.calls} calls, ${tally.answered} answered, ${tally.refused} refused with a reason code, ${tally.protocolErrors} JSON-RPC errors`,
  );
});

const names = fc.oneof(
  { arbitrary: fc.constantFrom('get_identity_profile', 'get_authentication_history', 'revoke_sessions'), weight: 3 },
  fc.constantFrom(
    'get_identity_profile',
    'search_siem_events',
    'disable_account',
    'revoke_sessions',
    'block_indicator',
    'submit_finding',
    'get_action_status',
  ),
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 2 }),
);
const args = fc.oneof(
  { arbitrary: fc.record({ user_id: fc.constantFrom('u-alex-rivera', 'u-priya-nair', 'u-svc-backup') }), weight: 3 },
  fc.record(
    {
      user_id: fc.oneof(fc.constantFrom('u-alex-rivera', 'u-svc-backup', 'u-priya-nair'), fc.string(), fc.jsonValue()),
      incident_id: fc.string({ maxLength: 20 }),
      query: fc.string({ maxLength: 200 }),
      action_id: fc.oneof(fc.uuid(), fc.string()),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
);

async function rpc(params: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(http.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${http.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++tally.calls, method: 'tools/call', params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('MCP tools/call property', () => {
  it(
    'any call gets a JSON-RPC answer, refusals name their reason, and nothing changes without approval',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          names,
          args,
          fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, fc.constant(false)),
          async (name, argumentsValue, wrapParams) => {
            const params = wrapParams ? { name, arguments: argumentsValue } : argumentsValue;
            const { status, body } = await rpc(params);
            expect(status).toBeLessThan(500);
            if ('error' in body) {
              tally.protocolErrors += 1;
              return;
            }
            const result = body.result as { isError?: boolean; content?: { text?: string }[] };
            expect(Array.isArray(result.content)).toBe(true);
            if (result.isError) {
              tally.refused += 1;
              expect(result.content?.[0]?.text ?? '').toMatch(/^[A-Za-z_][A-Za-z0-9_]*: /);
            } else tally.answered += 1;
          },
        ),
        fuzzParameters(SUITE_RUNS),
      );
      // No state change ran: the protected plane needs an approval for every one, and none was given.
      expect(simulator.executionLog).toEqual([]);
      const executions = control.executor.executions;
      expect(simulator.accessLog.length).toBe(executions.length);
      for (const e of executions) expect(control.gateway.grants.get(e.grant_id), e.tool).toBeDefined();
      expect(tally.refused).toBeGreaterThan(0);
      expect(tally.answered).toBeGreaterThan(0);
    },
    fuzzTimeout(SUITE_RUNS, 30),
  );
});
