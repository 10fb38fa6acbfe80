import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../../src/adapters/base.js';
import { ModelOptions, type ModelOptionsInput } from '../../../src/adapters/model/options.js';
import { modelAdapter } from '../../../src/adapters/model.js';
import { TestCase } from '../../../src/core/testcase.js';
import { json, listen, readBody, type TestServer } from './servers.js';

/** The model adapter against a fake OpenAI-compatible Chat Completions server on loopback. */

const API_KEY = 'sk-fake-4f1d2c9e';
let server: TestServer;
const requests: Record<string, unknown>[] = [];

function completion(
  message: Record<string, unknown>,
  finish: string,
  usage = { prompt_tokens: 21, completion_tokens: 4 },
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-llm-1',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

beforeAll(async () => {
  server = await listen(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    requests.push({ path: req.url, auth: req.headers.authorization, body });
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return json(res, 401, { error: { message: 'bad key' } });
    const messages = body.messages as { role: string; content: string }[];
    const last = messages.at(-1)?.content ?? '';
    if (last.includes('overloaded')) {
      return json(
        res,
        429,
        { error: { message: `rate limited for key ${API_KEY}`, type: 'rate_limit' } },
        { 'retry-after': '1' },
      );
    }
    if (Array.isArray(body.tools) && body.tools.length > 0) {
      return json(
        res,
        200,
        completion(
          {
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-1"}' } },
            ],
          },
          'tool_calls',
        ),
      );
    }
    return json(res, 200, completion({ content: `Answer to: ${last}` }, 'stop'));
  });
});

afterAll(async () => {
  await server.close();
});

function ctx(input: string): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id: 'llm-1', name: 'llm', input }),
    repeat: 0,
    attempt: 1,
    vars: {},
  };
}

async function make(extra: Partial<ModelOptionsInput> = {}) {
  return modelAdapter.create(
    ModelOptions.parse({
      provider: 'openai_compatible',
      model: 'fake-llm-1',
      env: { OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1`, OPENAI_COMPATIBLE_API_KEY: API_KEY },
      system: 'You answer briefly.',
      ...extra,
    }),
    { baseDir: '.', env: {} },
  );
}

describe('model adapter, openai_compatible provider against a fake server', () => {
  it('sends the templated prompt and records the completion with its usage', async () => {
    const agent = await make({ prompt: 'Question: {{input}}' });
    const out = await agent.run('What is MCP?', ctx('What is MCP?'));
    expect(out.error).toBeNull();
    // (@aeh/models labels each message with its trust level on the wire.)
    expect(out.output).toMatch(/^Answer to: .*Question: What is MCP\?$/);
    expect(out.usage).toMatchObject({ input_tokens: 21, output_tokens: 4 });
    expect(out.metadata).toMatchObject({ provider: 'openai_compatible', model: 'fake-llm-1', finish_reason: 'stop' });
    const sent = requests.at(-1) as { path: string; auth: string; body: { model: string; messages: unknown[] } };
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('fake-llm-1');
    expect(sent.body.messages).toEqual([
      { role: 'system', content: expect.stringContaining('You answer briefly.') },
      { role: 'user', content: expect.stringContaining('Question: What is MCP?') },
    ]);
  });

  it('offers tools and records the proposed call', async () => {
    const agent = await make({
      tools: [
        {
          name: 'lookup_order',
          description: 'Find an order',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        },
      ],
    });
    const out = await agent.run('Where is A-1?', ctx('Where is A-1?'));
    expect(out.error).toBeNull();
    expect(out.tool_calls).toEqual([expect.objectContaining({ tool_name: 'lookup_order', args: { order_id: 'A-1' } })]);
    const sent = requests.at(-1) as { body: { tools: { function: { name: string } }[] } };
    expect(sent.body.tools[0]?.function.name).toBe('lookup_order');
  });

  it('reports 429 as a transient rate limit without leaking the API key', async () => {
    const agent = await make();
    const out = await agent.run('overloaded', ctx('overloaded'));
    expect(out.transient).toBe(true);
    expect(out.metadata).toMatchObject({ http_status: 429, rate_limited: true });
    expect(JSON.stringify(out)).not.toContain(API_KEY);
    expect(JSON.stringify((agent.describe?.() ?? {}) as object)).not.toContain(API_KEY);
  });
});
