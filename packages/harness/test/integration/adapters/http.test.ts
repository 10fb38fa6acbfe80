import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { HttpOptions, type HttpOptionsInput } from '../../../src/adapters/http/options.js';
import { httpAdapter } from '../../../src/adapters/http.js';
import { TestCase } from '../../../src/core/testcase.js';
import { closedPort, json, listen, readBody, type TestServer } from './servers.js';

const TOKEN = 'tok-LEAKCHECK-9f2c1e7a';
let server: TestServer;
let tokenRequests = 0;
let inFlight = 0;
let peak = 0;
const agents: Agent[] = [];

function ctx(input: unknown = 'hi', extra: Partial<RunContext> = {}): RunContext {
  const testCase = TestCase.parse({ id: 'case-1', name: 'Case 1', input, vars: { user: 'ann' } });
  return {
    signal: new AbortController().signal,
    testCase,
    repeat: 0,
    attempt: 1,
    vars: { user: 'ann', n: 2 },
    ...extra,
  };
}

async function make(options: HttpOptionsInput, env: Record<string, string> = {}): Promise<Agent> {
  const agent = await httpAdapter.create(HttpOptions.parse(options), { baseDir: process.cwd(), env });
  agents.push(agent);
  return agent;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    switch (url.pathname) {
      case '/agent': {
        const parsed = body ? JSON.parse(body) : {};
        return json(res, 200, {
          answer: `You asked: ${typeof parsed.question === 'string' ? parsed.question : JSON.stringify(parsed)}`,
          steps: [{ tool: 'search', input: { q: parsed.question } }],
          usage: { prompt_tokens: 12, completion_tokens: 7 },
        });
      }
      case '/inspect':
        return json(res, 200, { method: req.method, path: req.url, headers: req.headers, body });
      case '/echo-auth':
        // A careless agent that echoes the credentials it received.
        return json(res, 200, { output: `your auth header was ${req.headers.authorization}` });
      case '/unauthorized':
        res.writeHead(401, { 'content-type': 'text/plain' });
        return res.end(`invalid credentials: ${req.headers.authorization}`);
      case '/ratelimited':
        res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
        return res.end('{"error":"slow down"}');
      case '/error500':
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end('{"error":"internal failure"}');
      case '/unavailable':
        res.writeHead(503);
        return res.end('maintenance');
      case '/notfound-ok':
        return json(res, 404, { output: 'no such thing' });
      case '/count': {
        inFlight++;
        peak = Math.max(peak, inFlight);
        // Long enough that the second of two concurrent requests arrives before the first is answered, even when
        // its connection is slow to open on a loaded machine.
        await sleep(300);
        inFlight--;
        return json(res, 200, { output: 'counted' });
      }
      case '/slow':
        await sleep(3000);
        return json(res, 200, { output: 'late' });
      case '/oversized': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        for (let i = 0; i < 40 && !res.destroyed; i++) {
          if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
        }
        return res.end();
      }
      case '/oversized-declared':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
        return res.end();
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>Bad gateway page</body></html>');
      case '/plain':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('just text');
      case '/badjson':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"answer": "unterminated');
      case '/reset':
        req.socket.destroy();
        return;
      case '/cut-body':
        // Half a reply, then the connection drops.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"output":"partial');
        await sleep(50);
        req.socket.destroy();
        return;
      case '/slow-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"output":"start');
        await sleep(3000);
        return res.end(' end"}');
      case '/sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': keep-alive comment\n\n');
        await sleep(150);
        for (const piece of ['The ', 'answer ', 'is ', '4.']) {
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
          await sleep(20);
        }
        res.write(
          `data: ${JSON.stringify({ choices: [{ delta: {} }], usage: { prompt_tokens: 5, completion_tokens: 4 } })}\n\n`,
        );
        res.write('data: [DONE]\n\n');
        return res.end();
      }
      case '/sse-error':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"delta":"partial"}\n\n');
        res.write(`event: error\ndata: {"message":"model overloaded"}\n\n`);
        return res.end();
      case '/ndjson': {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write('{"token":"Hel"}\n{"tok');
        await sleep(20);
        res.write('en":"lo"}\n');
        res.write('{"done":true,"steps":[{"name":"calc","arguments":{"x":1}}]}\n');
        return res.end();
      }
      case '/oauth/token': {
        tokenRequests++;
        await sleep(30);
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        const basic = Buffer.from(String(req.headers.authorization).replace('Basic ', ''), 'base64').toString();
        if (basic !== 'client-a:client-secret-xyz') return json(res, 401, { error: 'invalid_client' });
        return json(res, 200, { access_token: `oauth-at-${tokenRequests}`, token_type: 'Bearer', expires_in: 3600 });
      }
      case '/protected':
        if (!/^Bearer oauth-at-\d+$/.test(String(req.headers.authorization))) return json(res, 401, { error: 'no' });
        return json(res, 200, { output: `granted to ${req.headers.authorization}` });
      default:
        res.writeHead(404);
        res.end();
    }
  });
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close?.()));
  await server.close();
});

describe('http adapter against a real server', () => {
  it('templates the request and maps output, tool calls and usage by JSON path', async () => {
    const agent = await make({
      url: `${server.url}/agent`,
      body: { question: '{{input}}', user: '{{vars.user}}' },
      response: { output: '$.answer', tool_calls: '$.steps[*]', usage: '$.usage' },
    });
    const out = await agent.run('What is 2+2?', ctx('What is 2+2?'));
    expect(out.error).toBeNull();
    expect(out.output).toBe('You asked: What is 2+2?');
    expect(out.tool_calls).toEqual([
      expect.objectContaining({ tool_name: 'search', args: { q: 'What is 2+2?' }, status: 'success' }),
    ]);
    expect(out.usage).toEqual({ input_tokens: 12, output_tokens: 7, estimated: false });
    expect(out.latency).toBeGreaterThan(0);
    expect(out.metadata.http_status).toBe(200);
  });

  it('sends method, query, headers and nested object input fields', async () => {
    const agent = await make({
      url: `${server.url}/inspect`,
      method: 'PUT',
      headers: { 'X-User': '{{vars.user}}', 'X-Case': '{{test.id}}' },
      query: { q: '{{input.question}}', n: '{{vars.n}}' },
      body: { payload: '{{input}}', first_tag: '{{input.tags[0]}}' },
    });
    const input = { question: 'a b&c', tags: ['x', 'y'] };
    const out = await agent.run(input, ctx(input));
    const seen = out.output as Record<string, unknown>;
    expect(seen.method).toBe('PUT');
    expect(seen.path).toBe('/inspect?q=a+b%26c&n=2');
    expect(seen.headers).toMatchObject({ 'x-user': 'ann', 'x-case': 'case-1', 'content-type': 'application/json' });
    expect(JSON.parse(seen.body as string)).toEqual({ payload: input, first_tag: 'x' });
  });

  it('reports a template variable that does not resolve as an error, without calling the agent', async () => {
    const agent = await make({ url: `${server.url}/inspect`, body: { q: '{{vars.nope}}' } });
    const out = await agent.run('x', ctx());
    expect(out.error).toMatch(/request template: body.q: '\{\{vars.nope\}\}' did not resolve/);
    expect(out.transient).toBeUndefined();
  });

  it('treats non-2xx as an adapter error and classifies transient ones', async () => {
    const r429 = await (await make({ url: `${server.url}/ratelimited` })).run('x', ctx());
    expect(r429).toMatchObject({ transient: true, retry_after: 2, output: '' });
    expect(r429.error).toMatch(
      /^HTTP 429 Too Many Requests from POST http:\/\/127\.0\.0\.1:\d+\/ratelimited: \{"error":"slow down"\}/,
    );
    expect(r429.metadata).toMatchObject({ http_status: 429, rate_limited: true });

    const r500 = await (await make({ url: `${server.url}/error500` })).run('x', ctx());
    expect(r500.error).toMatch(/^HTTP 500 Internal Server Error/);
    expect(r500.transient).toBeUndefined();
    expect(r500.output).toBe('');

    const r503 = await (await make({ url: `${server.url}/unavailable` })).run('x', ctx());
    expect(r503).toMatchObject({ transient: true });
    expect(r503.error).toContain('maintenance');
  });

  it('accepts other statuses when the suite says so', async () => {
    const agent = await make({ url: `${server.url}/notfound-ok`, accept_status: ['2xx', 404] });
    const out = await agent.run('x', ctx());
    expect(out).toMatchObject({ output: 'no such thing', error: null, metadata: { http_status: 404 } });
  });

  it('never returns the token, even from an error body or an echoing agent', async () => {
    const env = { AGENT_TOKEN: TOKEN };
    const unauthorized = await (
      await make({ url: `${server.url}/unauthorized`, auth: { type: 'bearer', token_env: 'AGENT_TOKEN' } }, env)
    ).run('x', ctx());
    expect(unauthorized.error).toMatch(/^HTTP 401/);
    expect(unauthorized.error).toContain('Bearer [REDACTED]');
    const echoing = await make({ url: `${server.url}/echo-auth`, auth: { type: 'bearer', token: TOKEN } });
    const out = await echoing.run('x', ctx());
    expect(out.output).toBe('your auth header was Bearer [REDACTED]');
    expect(JSON.stringify([unauthorized, out, echoing.describe?.()])).not.toContain(TOKEN);
  });

  it('gets an OAuth2 client-credentials token once for concurrent cases', async () => {
    tokenRequests = 0;
    const agent = await make({
      url: `${server.url}/protected`,
      auth: {
        type: 'oauth2',
        token_url: `${server.url}/oauth/token`,
        client_id: 'client-a',
        client_secret: 'client-secret-xyz',
      },
    });
    const outs = await Promise.all(Array.from({ length: 8 }, () => agent.run('x', ctx())));
    expect(tokenRequests).toBe(1);
    for (const o of outs) {
      expect(o.error).toBeNull();
      expect(o.output).toBe('granted to Bearer [REDACTED]');
    }
    const wrong = await make({
      url: `${server.url}/protected`,
      auth: {
        type: 'oauth2',
        token_url: `${server.url}/oauth/token`,
        client_id: 'client-a',
        client_secret: 'nope-nope',
      },
    });
    const denied = await wrong.run('x', ctx());
    expect(denied.error).toMatch(/OAuth2 token request to .* failed: HTTP 401/);
    expect(denied.error).not.toContain('nope-nope');
  });

  it('times out a slow agent and honours the run signal', async () => {
    const slow = await make({ url: `${server.url}/slow`, timeout: 0.2 });
    const out = await slow.run('x', ctx());
    expect(out.error).toMatch(/within 0.2 s \(timeout\)/);
    expect(out.transient).toBe(true);

    const ac = new AbortController();
    const agent = await make({ url: `${server.url}/slow` });
    const pending = agent.run('x', ctx('x', { signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    const aborted = await pending;
    expect(aborted.error).toMatch(/aborted/);
    expect(aborted.latency).toBeLessThan(2);
  });

  it('rejects oversized replies with a clear error', async () => {
    const streamed = await (await make({ url: `${server.url}/oversized`, max_response_bytes: 1024 * 1024 })).run(
      'x',
      ctx(),
    );
    expect(streamed.error).toMatch(/response too large: .* more than max_response_bytes \(1048576 bytes\)/);
    const declared = await (await make({ url: `${server.url}/oversized-declared` })).run('x', ctx());
    expect(declared.error).toMatch(/announced 52428800 bytes, over max_response_bytes \(10485760\)/);
  });

  it('handles non-JSON and malformed JSON replies', async () => {
    const html = await (await make({ url: `${server.url}/html`, response: { output: '$.answer' } })).run('x', ctx());
    expect(html.error).toMatch(/expected a JSON reply .* got text\/html: <html><body>Bad gateway page/);
    const plain = await (await make({ url: `${server.url}/plain` })).run('x', ctx());
    expect(plain).toMatchObject({ output: 'just text', error: null });
    const bad = await (await make({ url: `${server.url}/badjson` })).run('x', ctx());
    expect(bad.error).toMatch(/invalid JSON from POST/);
    const missing = await (await make({ url: `${server.url}/agent`, response: { output: '$.nope' } })).run('x', ctx());
    expect(missing.error).toMatch(/output path '\$.nope' found nothing/);
  });

  it('never scores half a reply: a body cut off or stalled past the timeout is an error', async () => {
    const cut = await (await make({ url: `${server.url}/cut-body` })).run('x', ctx());
    expect(cut.output).toBe('');
    expect(cut.transient).toBe(true);
    expect(cut.error).toMatch(/closed by the server|connection reset/);
    const stalled = await (await make({ url: `${server.url}/slow-body`, timeout: 0.3 })).run('x', ctx());
    expect(stalled.output).toBe('');
    expect(stalled.error).toMatch(/within 0.3 s \(timeout\)/);
    // An error reply's body is cut at 64 KiB for the message, and the connection stays usable afterwards.
    const agent = await make({ url: `${server.url}/unauthorized` });
    expect((await agent.run('x', ctx())).error).toMatch(/^HTTP 401/);
    expect((await agent.run('x', ctx())).error).toMatch(/^HTTP 401/);
  });

  it('classifies connection reset and connection refused as transient', async () => {
    const reset = await (await make({ url: `${server.url}/reset` })).run('x', ctx());
    expect(reset.transient).toBe(true);
    expect(reset.error).toMatch(/(connection reset|closed by the server)/);
    const port = await closedPort();
    const refused = await (await make({ url: `http://127.0.0.1:${port}/x` })).run('x', ctx());
    expect(refused.transient).toBe(true);
    expect(refused.error).toMatch(/connection refused \(ECONNREFUSED\)/);
  });

  it('assembles an SSE stream and records time to first token', async () => {
    const agent = await make({ url: `${server.url}/sse` });
    const out = await agent.run('x', ctx());
    expect(out.error).toBeNull();
    expect(out.output).toBe('The answer is 4.');
    expect(out.time_to_first_token).toBeGreaterThanOrEqual(0.14);
    expect(out.latency).toBeGreaterThanOrEqual(out.time_to_first_token as number);
    expect(out.usage).toEqual({ input_tokens: 5, output_tokens: 4, estimated: false });
    expect(out.metadata).toMatchObject({ stream: 'sse', stream_events: 5 });
  });

  it('reports an error event in a stream', async () => {
    const out = await (await make({ url: `${server.url}/sse-error` })).run('x', ctx());
    expect(out.error).toMatch(/stream .* reported an error: model overloaded/);
  });

  it('assembles NDJSON with a tool-call mapping applied to every event', async () => {
    const agent = await make({ url: `${server.url}/ndjson`, response: { tool_calls: '$.steps[*]' } });
    const out = await agent.run('x', ctx());
    expect(out.output).toBe('Hello');
    expect(out.tool_calls).toEqual([expect.objectContaining({ tool_name: 'calc', args: { x: 1 } })]);
    expect(out.time_to_first_token).not.toBeNull();
  });

  it('reuses keep-alive connections across cases', async () => {
    const agent = await make({ url: `${server.url}/agent`, response: { output: '$.answer' } });
    let connections = 0;
    const onConnection = () => connections++;
    server.server.on('connection', onConnection);
    for (let i = 0; i < 20; i++) expect((await agent.run(`q${i}`, ctx(`q${i}`))).error).toBeNull();
    server.server.off('connection', onConnection);
    // Without keep-alive this would be 20 (undici may open a second socket while the first is being released).
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('caps requests in flight to the agent with max_concurrency', async () => {
    peak = 0;
    const agent = await make({ url: `${server.url}/count`, max_concurrency: 2 });
    const outs = await Promise.all(Array.from({ length: 8 }, () => agent.run('x', ctx())));
    expect(outs.every((o) => o.output === 'counted')).toBe(true);
    expect(peak).toBe(2);
  });
});
