import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { HttpOptions, type HttpOptionsInput } from '../../../src/adapters/http/options.js';
import { httpAdapter } from '../../../src/adapters/http.js';
import { TestCase } from '../../../src/core/testcase.js';
import { json, listen, type TestServer } from './servers.js';

/**
 * Issue 15 defect 9: `{{input}}` in a URL path was inserted raw, so `../../admin` reached the server as `/admin`.
 * A real loopback server records the request target exactly as it arrived on the wire.
 */

let server: TestServer;
const seen: string[] = [];
const agents: Agent[] = [];

function ctx(input: string): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id: 'case-1', name: 'case-1', input }),
    repeat: 0,
    attempt: 1,
    vars: { route: 'v1/chat' },
  };
}

async function make(options: HttpOptionsInput, env: Record<string, string> = {}): Promise<Agent> {
  const agent = await httpAdapter.create(HttpOptions.parse(options), { baseDir: process.cwd(), env });
  agents.push(agent);
  return agent;
}

async function target(agent: Agent, input: string): Promise<{ path: string | undefined; error: string | null }> {
  const before = seen.length;
  const out = await agent.run(input, ctx(input));
  return { path: seen.length > before ? seen.at(-1) : undefined, error: out.error };
}

beforeAll(async () => {
  server = await listen((req, res) => {
    seen.push(req.url ?? '');
    json(res, 200, { output: 'ok' });
  });
});

afterAll(async () => {
  for (const a of agents) await a.close?.();
  await server.close();
});

describe('template values in the request URL', () => {
  it('stay inside their path segment: ../../admin never reaches /admin', async () => {
    const agent = await make({ url: `${server.url}/agent/{{input}}/reply`, method: 'GET' });
    expect(await target(agent, '../../admin')).toEqual({ path: '/agent/..%2F..%2Fadmin/reply', error: null });
    expect((await target(agent, 'a b?c=1#x')).path).toBe('/agent/a%20b%3Fc%3D1%23x/reply');
    expect((await target(agent, 'plain-word')).path).toBe('/agent/plain-word/reply');
  });

  it('refuses a value that is a whole . or .. segment (URL parsers resolve it), without calling the server', async () => {
    const agent = await make({ url: `${server.url}/agent/{{input}}`, method: 'GET' });
    for (const input of ['..', '.']) {
      const r = await target(agent, input);
      expect(r.path).toBeUndefined();
      expect(r.error).toMatch(/url: '\{\{input\}\}' makes the URL path segment '\.{1,2}', .* refused/);
    }
  });

  it('cannot add query parameters or a fragment through a query value', async () => {
    const agent = await make({ url: `${server.url}/search?q={{input}}&lang=en`, method: 'GET' });
    expect((await target(agent, 'x&admin=1#frag')).path).toBe('/search?q=x%26admin%3D1%23frag&lang=en');
  });

  it('inserts raw only when asked (| raw), encodes once with | urlencode, and keeps a templated base URL', async () => {
    const raw = await make({ url: `${server.url}/agent/{{vars.route | raw}}`, method: 'GET' });
    expect((await target(raw, 'hi')).path).toBe('/agent/v1/chat');
    const once = await make({ url: `${server.url}/agent/{{input | urlencode}}`, method: 'GET' });
    expect((await target(once, 'a/b')).path).toBe('/agent/a%2Fb');
    const based = await make({ url: '{{env.API_BASE}}/ask/{{input}}', method: 'GET' }, { API_BASE: server.url });
    expect((await target(based, 'a/b')).path).toBe('/ask/a%2Fb');
  });
});
