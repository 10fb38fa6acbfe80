import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CapabilityUnsupportedError, type ModelRequest, ProviderError } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { AgentRequest } from '../../../src/contracts/agent-v1.js';
import {
  READ_ONLY_TOOL_SPECS,
  responseSchema,
  SYSTEM_PROMPT,
  stageInstruction,
} from '../../../src/orchestrator/prompts.js';
import {
  type AgentTransport,
  AgentTransportError,
  buildAgentRequest,
  type HttpAgentLogger,
  HttpAgentProvider,
} from '../../../src/providers/http.js';
import { defined } from '../../helpers/defined.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8');
const TOKEN = 'tok-contract-5f2a9c7e1b';
const URL_ = 'http://127.0.0.1:9/v1/agent';
const ALERT = { incident_id: 'INC-1001', subject_user_id: 'u-alex-rivera', title: 'Possible credential compromise' };

/** A request shaped like the orchestrator's at `stage`, after two tool results. */
function stageRequest(stage: ModelRequest['stage'] = 'collect_endpoint'): ModelRequest {
  return {
    stage,
    system_prompt: SYSTEM_PROMPT,
    messages: [
      { role: 'user', content: JSON.stringify({ alert: ALERT }), trust: 'untrusted', tool_name: null },
      {
        role: 'tool',
        content: JSON.stringify({ evidence_id: 'get_identity_profile:1', result: { user_id: 'u-alex-rivera' } }),
        trust: 'untrusted',
        tool_name: 'get_identity_profile',
      },
      {
        role: 'tool',
        content: JSON.stringify({ evidence_id: 'get_authentication_history:2', result: { count: 5, events: [] } }),
        trust: 'untrusted',
        tool_name: 'get_authentication_history',
      },
      { role: 'user', content: stageInstruction(stage as never), trust: 'trusted', tool_name: null },
    ],
    tools: [...READ_ONLY_TOOL_SPECS],
    response_schema: responseSchema(stage as never),
    max_output_tokens: 1024,
    temperature: 0,
    run_id: 'run-7',
    trace_id: 'trace-7',
    incident_id: 'INC-1001',
  };
}

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function scripted(...replies: Array<{ status?: number; body: string } | Error>) {
  const sent: Sent[] = [];
  let i = 0;
  const transport: AgentTransport = async ({ url, headers, body }) => {
    sent.push({ url, headers, body: JSON.parse(body) });
    const r = defined(replies[Math.min(i++, replies.length - 1)], 'a scripted reply');
    if (r instanceof Error) throw r;
    return { status: r.status ?? 200, body: r.body };
  };
  const lines: string[] = [];
  const logger: HttpAgentLogger = {
    debug: (l) => lines.push(`debug ${l}`),
    info: (l) => lines.push(`info ${l}`),
    warn: (l) => lines.push(`warn ${l}`),
  };
  const provider = new HttpAgentProvider({ url: URL_, token: TOKEN, transport, logger });
  return { provider, sent, lines };
}

describe('http provider: request translation', () => {
  it('sends one valid soclab.agent.v1 request per stage', async () => {
    const { provider, sent } = scripted({ body: fixture('http_agent_tool_call.json') });
    await provider.generateStructured(stageRequest());
    expect(sent).toHaveLength(1);
    const body = AgentRequest.parse(defined(sent[0], 'the first request').body);
    expect(body).toMatchObject({
      contract: 'soclab.agent.v1',
      run_id: 'run-7',
      trace_id: 'trace-7',
      incident_id: 'INC-1001',
      stage: 'collect_endpoint',
      instruction: stageInstruction('collect_endpoint'),
      system_prompt: SYSTEM_PROMPT,
      context: { alert: ALERT, evidence_ids: ['alert', 'get_identity_profile:1', 'get_authentication_history:2'] },
      max_output_tokens: 1024,
      temperature: 0,
    });
    expect(body.tools.map((t) => t.name)).toEqual(READ_ONLY_TOOL_SPECS.map((t) => t.name));
    expect(body.turns).toHaveLength(3);
    expect(body.turns[1]).toMatchObject({ role: 'tool', trust: 'untrusted', tool_name: 'get_identity_profile' });
    expect(body.response_schema).toEqual(responseSchema('collect_endpoint'));
  });

  it('sends the token only in the Authorization header, with the contract headers', async () => {
    const { provider, sent } = scripted({ body: fixture('http_agent_tool_call.json') });
    await provider.generate(stageRequest());
    expect(defined(sent[0], 'the first request').url).toBe(URL_);
    expect(defined(sent[0], 'the first request').headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'x-soclab-contract': 'soclab.agent.v1',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(JSON.stringify(defined(sent[0], 'the first request').body)).not.toContain(TOKEN);
    const anonymous = new HttpAgentProvider({
      url: URL_,
      transport: async ({ headers }) => {
        expect(headers.authorization).toBeUndefined();
        return { status: 200, body: fixture('http_agent_tool_call.json') };
      },
    });
    await anonymous.generate(stageRequest());
  });

  it('falls back to unassigned ids and a stage instruction when the request has none', () => {
    const wire = buildAgentRequest({
      ...stageRequest('collect_identity'),
      messages: [{ role: 'user', content: 'not json', trust: 'untrusted', tool_name: null }],
      run_id: null,
      trace_id: null,
      incident_id: null,
    });
    expect(wire).toMatchObject({
      run_id: 'unassigned',
      trace_id: 'unassigned',
      incident_id: 'unassigned',
      instruction: 'Stage collect_identity. Answer per the soclab.agent.v1 contract.',
      context: { alert: null, evidence_ids: [] },
    });
  });

  it('takes the incident id from the alert when the request carries none', () => {
    const wire = buildAgentRequest({ ...stageRequest(), incident_id: null });
    expect(wire.incident_id).toBe('INC-1001');
  });

  it('continueAfterTool appends an untrusted tool turn before posting', async () => {
    const { provider, sent } = scripted({ body: fixture('http_agent_tool_call.json') });
    await provider.continueAfterTool(stageRequest(), 'get_endpoint_status', { evidence_id: 'x:3', result: {} });
    const turns = defined(sent[0], 'the first request').body.turns as Array<Record<string, unknown>>;
    // the trailing trusted instruction is no longer last, so it stays a turn and the fallback instruction is used
    expect(turns.at(-1)).toMatchObject({ role: 'tool', trust: 'untrusted', tool_name: 'get_endpoint_status' });
    expect((defined(sent[0], 'the first request').body.context as { evidence_ids: string[] }).evidence_ids).toContain(
      'x:3',
    );
  });

  it('refuses to stream', async () => {
    const { provider } = scripted({ body: '{}' });
    const it = provider.stream(stageRequest())[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toBeInstanceOf(CapabilityUnsupportedError);
  });
});

describe('http provider: replies (recorded fixtures)', () => {
  it('tool call: structured plan + native tool call, unknown evidence ids dropped, raw reply kept', async () => {
    const { provider } = scripted({ body: fixture('http_agent_tool_call.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(res.finish_reason).toBe('tool_proposal');
    expect(res.tool_call).toEqual({ name: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } });
    expect(res.structured).toEqual({
      tool: 'get_identity_profile',
      arguments: { user_id: 'u-alex-rivera' },
      rationale: 'Profile the user named in the alert.',
      evidence_ids: ['alert'],
      confidence: 0.7,
    });
    expect(res.output_text).toBe(fixture('http_agent_tool_call.json'));
    expect(res).toMatchObject({ provider: 'http', model: 'agent', estimated_cost_usd: null, cost_is_estimated: true });
    expect(res.usage.estimated).toBe(true);
  });

  it('finding: claims keep their own ids (support is decided per claim), reported usage is not estimated', async () => {
    const { provider } = scripted({ body: fixture('http_agent_finding.json') });
    const res = await provider.generateStructured(stageRequest('form_finding'));
    expect(res.finish_reason).toBe('stop');
    expect(res.tool_call).toBeNull();
    expect(res.structured).toMatchObject({
      summary: 'Likely account compromise of u-alex-rivera',
      claims: [
        { text: '3 failed sign-ins from 198.51.100.77', evidence_ids: ['get_authentication_history:2'] },
        { text: 'The account was compromised through a zero-day', evidence_ids: ['ev-999'] },
      ],
      techniques: ['T1110.001', 'T1078'],
      confidence: 0.8,
      evidence_ids: ['get_authentication_history:2'],
    });
    expect(res.usage).toEqual({ input_tokens: 1200, output_tokens: 140, estimated: false });
  });

  it('refusal: recorded with code and reason, no structured output, logged at info', async () => {
    const { provider, lines } = scripted({ body: fixture('http_agent_refusal.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(res.structured).toBeNull();
    expect(res.tool_call).toBeNull();
    expect(res.finish_reason).toBe('stop');
    expect(JSON.parse(res.output_text).refusal).toEqual({
      code: 'insufficient_evidence',
      reason: 'The alert names no subject user.',
    });
    expect(lines.some((l) => l.startsWith('info agent refused') && l.includes('insufficient_evidence'))).toBe(true);
  });

  it('canary in a reply: kept raw in output_text for leak scanning, redacted in every log line', async () => {
    const { provider, lines } = scripted({ body: fixture('http_agent_canary.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(res.output_text).toContain('CANARY-SECRET-001');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain('CANARY-SECRET-001');
    expect(lines.some((l) => l.includes('[REDACTED]'))).toBe(true);
  });

  it('schema violation: error turn naming the rule, no structured output', async () => {
    const { provider, lines } = scripted({ body: fixture('http_agent_schema_violation.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(res).toMatchObject({ finish_reason: 'error', structured: null, tool_call: null });
    expect(JSON.parse(res.output_text)).toEqual({
      refusal: { code: 'schema_violation', reason: '1 validation error: (root): exactly one of proposal or refusal' },
    });
    expect(lines.some((l) => l.startsWith('warn error turn'))).toBe(true);
  });

  it('malformed (not JSON): error turn invalid_json', async () => {
    const { provider } = scripted({ body: fixture('http_agent_malformed.txt') });
    const res = await provider.generateStructured(stageRequest());
    expect(res.finish_reason).toBe('error');
    expect(JSON.parse(res.output_text).refusal.code).toBe('invalid_json');
  });

  it('maps statuses: 401/403 authentication_rejected, 4xx request_rejected, 5xx agent_error, others unexpected', async () => {
    const cases: Array<[number, string]> = [
      [401, 'authentication_rejected'],
      [403, 'authentication_rejected'],
      [404, 'request_rejected'],
      [429, 'request_rejected'],
      [500, 'agent_error'],
      [503, 'agent_error'],
      [302, 'unexpected_status'],
    ];
    for (const [status, code] of cases) {
      const { provider, sent } = scripted({ status, body: fixture('http_agent_tool_call.json') });
      const res = await provider.generateStructured(stageRequest());
      expect(res.structured, `status ${status}`).toBeNull();
      expect(JSON.parse(res.output_text).refusal.code, `status ${status}`).toBe(code);
      expect(sent, `status ${status} is never retried`).toHaveLength(1);
    }
  });
});

describe('http provider: retries', () => {
  const connect = () => new AgentTransportError('connect', 'Error: ECONNREFUSED');
  it('retries exactly once on a connection error', async () => {
    const { provider, sent } = scripted(connect(), { body: fixture('http_agent_tool_call.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(sent).toHaveLength(2);
    expect(res.tool_call?.name).toBe('get_identity_profile');
  });
  it('two connection failures become a transport_error turn', async () => {
    const { provider, sent } = scripted(connect(), connect(), { body: fixture('http_agent_tool_call.json') });
    const res = await provider.generateStructured(stageRequest());
    expect(sent).toHaveLength(2);
    expect(JSON.parse(res.output_text).refusal).toEqual({
      code: 'transport_error',
      reason: 'connection failed twice: Error: ECONNREFUSED',
    });
  });
  it('never retries a timeout or another transport failure', async () => {
    for (const err of [new AgentTransportError('timeout', 'slow'), new AgentTransportError('other', 'broken')]) {
      const { provider, sent } = scripted(err, { body: fixture('http_agent_tool_call.json') });
      const res = await provider.generateStructured(stageRequest());
      expect(sent).toHaveLength(1);
      expect(res.finish_reason).toBe('error');
    }
  });
});

describe('http provider: configuration', () => {
  it('rejects URLs that are not absolute http(s)', () => {
    for (const url of ['agent.example/v1', 'ftp://agent.example/v1', '/v1/agent', 'http://']) {
      expect(() => new HttpAgentProvider({ url }), url).toThrow(
        'SOCLAB_HTTP_AGENT_URL must be an absolute http or https URL',
      );
    }
  });
  it('reads the environment: timeout must be a number above 0, model label defaults to agent', () => {
    expect(() =>
      HttpAgentProvider.fromEnv({ SOCLAB_HTTP_AGENT_URL: URL_, SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS: 'soon' }),
    ).toThrow("SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS must be a number, got 'soon'");
    expect(() =>
      HttpAgentProvider.fromEnv({ SOCLAB_HTTP_AGENT_URL: URL_, SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS: '0' }),
    ).toThrow(/greater than 0/);
    expect(() => HttpAgentProvider.fromEnv({})).toThrow(ProviderError);
    const p = HttpAgentProvider.fromEnv({ SOCLAB_HTTP_AGENT_URL: URL_, SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS: '2.5' });
    expect(p.timeoutMs).toBe(2500);
    expect(p.model).toBe('agent');
    expect(HttpAgentProvider.fromEnv({ SOCLAB_HTTP_AGENT_URL: URL_ }, 'my-agent-v2').model).toBe('my-agent-v2');
  });
  it('reports its capabilities: tools and structured output, no streaming, no usage reporting', () => {
    expect(new HttpAgentProvider({ url: URL_ }).describeCapabilities()).toEqual({
      tool_calling: true,
      structured_output: true,
      streaming: false,
      usage_reporting: false,
      multimodal_input: false,
    });
  });
});
