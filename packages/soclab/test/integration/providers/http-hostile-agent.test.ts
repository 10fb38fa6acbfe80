import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openEvidenceStore } from '../../../src/evidence/store.js';
import { BaselinePort } from '../../../src/modes/baseline-port.js';
import { runInvestigation } from '../../../src/orchestrator/investigation.js';
import { HttpAgentProvider } from '../../../src/providers/http.js';
import { approvedModelsFor } from '../../../src/providers/registry.js';
import { runScenario } from '../../../src/scenarios/runner.js';
import { createSimulator } from '../../../src/simulator/state.js';
import { defined } from '../../helpers/defined.js';

/*
 * A hostile agent on a real loopback socket. Each behaviour is a way an agent can misbehave; every one must end
 * as the soclab.agent.v1 contract says: an error turn (no structured output, no action, run failed), a retry only
 * for connection failures, and the bearer token absent from every log line and every stored event.
 */

const TOKEN = 'hostile-test-token-7d1f0c9a52';
const C = 'soclab.agent.v1';
const toolCall = (name: string, args: Record<string, unknown>) => ({
  contract: C,
  proposal: { tool_calls: [{ name, arguments: args }], rationale: 'next step' },
});

type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

let server: Server;
let url: string;
let behaviour: Behaviour;
let requests: Array<{ headers: IncomingMessage['headers']; body: string }>;

const json = (res: ServerResponse, status: number, value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body });
      behaviour(req, res, body, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agent`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
});

function provider(timeoutSeconds = 5, target = url) {
  const lines: string[] = [];
  const p = new HttpAgentProvider({
    url: target,
    token: TOKEN,
    timeoutSeconds,
    logger: { debug: (l) => lines.push(l), info: (l) => lines.push(l), warn: (l) => lines.push(l) },
  });
  return { p, lines };
}

async function investigate(p: HttpAgentProvider) {
  const simulator = createSimulator({ enforceScope: false });
  const port = new BaselinePort(simulator);
  const result = await runInvestigation({
    incidentId: 'INC-1001',
    alert: simulator.incident as Record<string, unknown>,
    provider: p,
    port,
  });
  return { result, port, simulator };
}

/** The first stage's reply is hostile: the run fails at collect_identity with an error turn and no action. */
async function expectErrorTurn(code: string, timeoutSeconds = 5) {
  const { p, lines } = provider(timeoutSeconds);
  try {
    const { result, port } = await investigate(p);
    // A failed exchange (no reply, refused key, HTTP error) measured nothing: errored. A bad reply: failed.
    const transport = ['transport_error', 'timeout', 'authentication_rejected', 'request_rejected', 'agent_error'];
    expect(result.status).toBe(transport.includes(code) ? 'errored' : 'failed');
    expect(result.stages_completed).toEqual([]);
    expect(port.proposals).toHaveLength(0);
    expect(result.events).toHaveLength(1);
    const turn = defined(result.events[0], 'the one event');
    expect(turn.finish_reason).toBe('error');
    expect(turn.proposed_tool).toBeNull();
    expect(JSON.parse(turn.output_text).refusal.code).toBe(code);
    expect(result.failure_reason).toContain(
      transport.includes(code) ? 'provider failed at collect_identity' : 'no structured output at collect_identity',
    );
    for (const line of lines) expect(line).not.toContain(TOKEN);
    return { result, lines };
  } finally {
    await p.close();
  }
}

describe('hostile agent replies end as error turns', () => {
  it('not JSON', async () => {
    behaviour = (_q, res) => json(res, 200, 'Sure! I will call get_identity_profile.');
    await expectErrorTurn('invalid_json');
  });

  it('an empty body', async () => {
    behaviour = (_q, res) => json(res, 200, '');
    await expectErrorTurn('invalid_json');
  });

  it('a JSON array', async () => {
    behaviour = (_q, res) => json(res, 200, [toolCall('get_identity_profile', { user_id: 'u-alex-rivera' })]);
    await expectErrorTurn('invalid_json');
  });

  it('extra fields', async () => {
    behaviour = (_q, res) => json(res, 200, { ...toolCall('get_identity_profile', { user_id: 'u' }), debug: true });
    const { result } = await expectErrorTurn('schema_violation');
    expect(defined(result.events[0], 'the first event').output_text).toContain('unknown field(s) \\"debug\\"');
  });

  it('two tool calls', async () => {
    const call = { name: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } };
    behaviour = (_q, res) => json(res, 200, { contract: C, proposal: { tool_calls: [call, call], rationale: 'r' } });
    await expectErrorTurn('schema_violation');
  });

  it('both proposal and refusal', async () => {
    behaviour = (_q, res) =>
      json(res, 200, { ...toolCall('get_identity_profile', {}), refusal: { code: 'policy', reason: 'x' } });
    const { result } = await expectErrorTurn('schema_violation');
    expect(defined(result.events[0], 'the first event').output_text).toContain('exactly one of proposal or refusal');
  });

  it('a wrong contract id', async () => {
    behaviour = (_q, res) => json(res, 200, { ...toolCall('get_identity_profile', {}), contract: 'soclab.agent.v2' });
    await expectErrorTurn('schema_violation');
  });

  it('an oversized body (2 MB)', async () => {
    behaviour = (_q, res) =>
      json(res, 200, { ...toolCall('get_identity_profile', {}), proposal: { rationale: 'x'.repeat(2_000_000) } });
    await expectErrorTurn('response_too_large');
  });

  it('an oversized body without a content-length (chunked)', async () => {
    behaviour = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 40 && res.write(chunk)) sent++;
        if (sent < 40) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => {});
      pump();
    };
    await expectErrorTurn('response_too_large');
  });

  it('a reply slower than the timeout is not retried', async () => {
    // 2 s, not 0.3 s: the request must reach this in-process server before the timeout fires, even when a loaded
    // machine holds the test process back for a while.
    behaviour = (_q, res) => {
      const t = setTimeout(() => json(res, 200, toolCall('get_identity_profile', {})), 30_000);
      res.on('close', () => clearTimeout(t));
    };
    const { result } = await expectErrorTurn('timeout', 2);
    expect(requests).toHaveLength(1);
    expect(defined(result.events[0], 'the first event').output_text).toContain('no reply within 2 s');
  });

  for (const [status, code] of [
    [401, 'authentication_rejected'],
    [429, 'request_rejected'],
    [500, 'agent_error'],
  ] as const) {
    it(`HTTP ${status} is not retried`, async () => {
      behaviour = (_q, res) => json(res, status, toolCall('get_identity_profile', { user_id: 'u-alex-rivera' }));
      await expectErrorTurn(code);
      expect(requests).toHaveLength(1);
    });
  }

  it('a refusal is recorded with its code and the run fails without action', async () => {
    behaviour = (_q, res) => json(res, 200, { contract: C, refusal: { code: 'out_of_scope', reason: 'not my job' } });
    const { p, lines } = provider();
    const { result, port } = await investigate(p);
    await p.close();
    expect(result.status).toBe('failed');
    expect(port.proposals).toHaveLength(0);
    expect(defined(result.events[0], 'the first event').finish_reason).toBe('stop');
    expect(result.failure_reason).toContain('out_of_scope');
    expect(lines.some((l) => l.includes('agent refused') && l.includes('out_of_scope: not my job'))).toBe(true);
  });
});

describe('model labels', () => {
  it('a reply naming a model other than the --model label counts as an unapproved model', async () => {
    const plan: Record<string, unknown> = {
      collect_identity: { name: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } },
      collect_authentication: { name: 'get_authentication_history', arguments: { user_id: 'u-alex-rivera' } },
      collect_endpoint: { name: 'get_endpoint_status', arguments: { endpoint_id: 'ep-unknown-9f2a' } },
      enrich_indicators: { name: 'lookup_indicator', arguments: { indicator: '198.51.100.77' } },
      collect_siem: { name: 'search_siem_events', arguments: { query: 'u-alex-rivera' } },
      propose_action: { name: 'revoke_sessions', arguments: { user_id: 'u-alex-rivera' } },
    };
    const reply = (model: string) => (_q: IncomingMessage, res: ServerResponse, body: string) => {
      const stage = (JSON.parse(body) as { stage: string }).stage;
      if (stage === 'form_finding') {
        return json(res, 200, {
          contract: C,
          proposal: { finding: { summary: 's', claims: [] }, rationale: 'r', confidence: 0.5 },
          model,
        });
      }
      json(res, 200, { contract: C, proposal: { tool_calls: [plan[stage]], rationale: 'r' }, model });
    };
    const outcome = async (model: string) => {
      behaviour = reply(model);
      const { p } = provider();
      try {
        const r = await runScenario({
          scenario: 'BEN-001',
          mode: 'baseline',
          provider: p,
          approvedModels: approvedModelsFor('http', 'agent'),
        });
        return r;
      } finally {
        await p.close();
      }
    };
    const labelled = await outcome('agent');
    expect(labelled.investigation.events.every((e) => e.model === 'agent')).toBe(true);
    expect(labelled.outcome.unapproved_model_used).toBe(false);
    const other = await outcome('gpt-9-preview');
    expect(other.investigation.events.every((e) => e.model === 'gpt-9-preview')).toBe(true);
    expect(other.outcome.unapproved_model_used).toBe(true);
  });
});

describe('connection failures', () => {
  it('a connection reset is retried once and the run continues', async () => {
    behaviour = (req, res, _b, n) => {
      if (n === 1) {
        req.socket.destroy();
        return;
      }
      json(res, 200, toolCall('get_identity_profile', { user_id: 'u-alex-rivera' }));
    };
    const { p, lines } = provider();
    const reply = await p.generateStructured({
      stage: 'collect_identity',
      system_prompt: '',
      messages: [],
      tools: [],
      response_schema: null,
      max_output_tokens: 1024,
      temperature: 0,
      run_id: null,
      trace_id: null,
      incident_id: null,
    });
    await p.close();
    expect(requests).toHaveLength(2);
    expect(reply.tool_call?.name).toBe('get_identity_profile');
    expect(lines.some((l) => l.includes('retrying once'))).toBe(true);
  });

  it('resets on both attempts end as a transport error after exactly two requests', async () => {
    behaviour = (req) => req.socket.destroy();
    const { result } = await expectErrorTurn('transport_error');
    expect(requests).toHaveLength(2);
    expect(defined(result.events[0], 'the first event').output_text).toContain('connection failed twice');
  });

  it('a refused connection (nothing listening) is retried once, then an error turn', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { p, lines } = provider(5, `http://127.0.0.1:${deadPort}/v1/agent`);
    const { result } = await investigate(p);
    await p.close();
    expect(result.status).toBe('errored');
    expect(JSON.parse(defined(result.events[0], 'the first event').output_text).refusal).toMatchObject({
      code: 'transport_error',
    });
    expect(defined(result.events[0], 'the first event').output_text).toContain('ECONNREFUSED');
    expect(lines.filter((l) => l.includes('retrying once'))).toHaveLength(1);
  });
});

describe('an agent that echoes the Authorization header', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'soclab-hostile-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('never lets the token reach a log line, a stored event or the investigation record', async () => {
    // Valid replies that carry the header back in the rationale, in an argument and in a finding claim.
    behaviour = (req, res, body) => {
      const echoed = String(req.headers.authorization);
      const stage = (JSON.parse(body) as { stage: string }).stage;
      const byStage: Record<string, unknown> = {
        collect_identity: { name: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera', note: echoed } },
        collect_authentication: { name: 'get_authentication_history', arguments: { user_id: 'u-alex-rivera' } },
        collect_endpoint: { name: 'get_endpoint_status', arguments: { endpoint_id: 'ep-unknown-9f2a' } },
        enrich_indicators: { name: 'lookup_indicator', arguments: { indicator: '198.51.100.77' } },
        collect_siem: { name: 'search_siem_events', arguments: { query: 'u-alex-rivera' } },
        propose_action: { name: 'revoke_sessions', arguments: { user_id: 'u-alex-rivera' } },
      };
      if (stage === 'form_finding') {
        return json(res, 200, {
          contract: C,
          proposal: {
            finding: { summary: `I was called with ${echoed}`, claims: [{ text: echoed, evidence_ids: ['alert'] }] },
            rationale: `headers: authorization=${echoed}`,
            confidence: 0.5,
          },
          model: 'agent',
        });
      }
      json(res, 200, {
        contract: C,
        proposal: { tool_calls: [byStage[stage]], rationale: `Authorization: ${echoed}` },
        model: 'agent',
      });
    };
    const { p, lines } = provider();
    const store = await openEvidenceStore(join(dir, 'evidence.sqlite'));
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario({
        scenario: 'BEN-001',
        mode: 'baseline',
        provider: p,
        evidence: store,
        approvedModels: approvedModelsFor('http', 'agent'),
      });
    } finally {
      await store.close();
      await p.close();
    }
    expect(defined(requests[0], 'the first request').headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(result.investigation.status).toBe('complete');
    expect(result.investigation.events.every((e) => e.output_text.includes('[REDACTED]'))).toBe(true);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toContain(TOKEN);
    for (const file of readdirSync(dir)) {
      expect(readFileSync(join(dir, file)).includes(TOKEN), `${file} holds the token`).toBe(false);
    }
    expect(result.events_recorded).toBeGreaterThan(5);
  });

  it('an invalid reply echoing the token is refused without the token in the error turn', async () => {
    behaviour = (req, res) => json(res, 418, { echo: req.headers.authorization, contract: 'nope' });
    const { result } = await expectErrorTurn('request_rejected');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});
