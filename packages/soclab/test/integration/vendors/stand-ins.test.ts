import { describe, expect, it } from 'vitest';
import { soclabProviderRegistry } from '../../../src/providers/registry.js';
import { startAnthropicStandIn } from '../../helpers/stand-ins/anthropic-messages.js';
import { startGeminiStandIn } from '../../helpers/stand-ins/gemini.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';
import { everyNth, type StandIn } from '../../helpers/stand-ins/server.js';
import { VENDORS } from '../../helpers/stand-ins/vendors.js';

/** The stand-ins reject what the vendors document they reject, in the vendors' error shapes, and stream SSE. */
const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
};

async function using<T>(server: Promise<StandIn>, body: (s: StandIn) => Promise<T>): Promise<T> {
  const s = await server;
  try {
    return await body(s);
  } finally {
    await s.close();
  }
}

const KEY = 'sk-standin-fidelity-0123456789';
const user = (content: string) => ({ role: 'user', content });

describe('OpenAI Chat Completions stand-in: documented request checks and error shape', () => {
  it('refuses a missing key, bad JSON, unknown parameters, json_object without "json", orphan tool messages, open strict schemas', async () => {
    await using(startOpenAIStandIn({ apiKey: KEY }), async (s) => {
      const url = `${s.url}/v1/chat/completions`;
      const auth = { authorization: `Bearer ${KEY}` };
      const ok = { model: 'gpt-4o-mini', messages: [user('hi')] };
      const noKey = await post(url, ok);
      expect(noKey.status).toBe(401);
      expect(noKey.json.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
      expect((await post(url, '{"model":', auth)).status).toBe(400);
      const unknown = await post(url, { ...ok, foo: 1 }, auth);
      expect(unknown).toMatchObject({
        status: 400,
        json: { error: { message: 'Unrecognized request argument supplied: foo' } },
      });
      const noJsonWord = await post(url, { ...ok, response_format: { type: 'json_object' } }, auth);
      expect(noJsonWord.status).toBe(400);
      expect(String((noJsonWord.json.error as { message: string }).message)).toContain("must contain the word 'json'");
      const orphan = await post(
        url,
        { ...ok, messages: [user('x'), { role: 'tool', content: '{}', tool_call_id: 'c1' }] },
        auth,
      );
      expect(orphan.status).toBe(400);
      const schema = { type: 'object', required: ['tool'] };
      const strict = await post(
        url,
        { ...ok, response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } },
        auth,
      );
      expect(strict.status).toBe(400);
      expect((strict.json.error as { message: string }).message).toContain("'additionalProperties' is required");
      const hot = await post(url, { ...ok, temperature: 3 }, auth);
      expect(hot.json.error).toMatchObject({ param: 'temperature', code: 'decimal_above_max_value' });
      const good = await post(url, ok, auth);
      expect(good.status).toBe(200);
      expect(good.json).toMatchObject({ object: 'chat.completion', model: 'gpt-4o-mini' });
      expect(good.json.usage).toMatchObject({
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
      });
    });
  });

  it('rate limits with Retry-After in the vendor shape, and resets connections on demand', async () => {
    await using(startOpenAIStandIn({ fault: everyNth(2) }), async (s) => {
      const url = `${s.url}/v1/chat/completions`;
      const body = { model: 'gpt-4o-mini', messages: [user('hi')] };
      expect((await post(url, body)).status).toBe(200);
      const limited = await post(url, body);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.json.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    });
    await using(startOpenAIStandIn({ fault: () => 'reset' }), async (s) => {
      await expect(post(`${s.url}/v1/chat/completions`, {})).rejects.toThrow(/fetch failed/);
    });
  });
});

describe('Anthropic Messages stand-in: documented request checks and error shape', () => {
  it('needs x-api-key and anthropic-version, max_tokens, a user first message, known fields', async () => {
    await using(startAnthropicStandIn({ apiKey: KEY }), async (s) => {
      const url = `${s.url}/v1/messages`;
      const h = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
      const ok = { model: 'claude-sonnet-4-20250514', max_tokens: 16, messages: [user('hi')] };
      const noKey = await post(url, ok, { 'anthropic-version': '2023-06-01' });
      expect(noKey.status).toBe(401);
      expect(noKey.json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      expect(noKey.headers.get('request-id')).toMatch(/^req_/);
      const noVersion = await post(url, ok, { 'x-api-key': KEY });
      expect(noVersion.json).toMatchObject({ error: { message: 'anthropic-version: header is required' } });
      const { max_tokens: _m, ...noMax } = ok;
      expect((await post(url, noMax, h)).json).toMatchObject({ error: { message: 'max_tokens: Field required' } });
      const assistantFirst = await post(url, { ...ok, messages: [{ role: 'assistant', content: 'x' }] }, h);
      expect(assistantFirst.json).toMatchObject({ error: { type: 'invalid_request_error' } });
      const systemRole = await post(url, { ...ok, messages: [{ role: 'system', content: 'x' }] }, h);
      expect(systemRole.status).toBe(400);
      expect((await post(url, { ...ok, response_format: {} }, h)).json).toMatchObject({
        error: { message: 'response_format: Extra inputs are not permitted' },
      });
      const good = await post(url, ok, h);
      expect(good.json).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    });
  });
});

describe('Gemini generateContent stand-in: documented request checks and error shape', () => {
  it('refuses a bad key (API_KEY_INVALID), unknown fields, and function calling with JSON mode', async () => {
    await using(startGeminiStandIn({ apiKey: KEY }), async (s) => {
      const url = `${s.url}/v1beta/models/gemini-2.5-flash:generateContent`;
      const ok = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
      const bad = await post(url, ok, { 'x-goog-api-key': 'nope-nope' });
      expect(bad.status).toBe(400);
      expect(bad.json.error).toMatchObject({
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      });
      const h = { 'x-goog-api-key': KEY };
      expect((await post(url, { ...ok, foo: 1 }, h)).json.error).toMatchObject({
        message: 'Invalid JSON payload received. Unknown name "foo": Cannot find field.',
      });
      const both = await post(
        url,
        {
          ...ok,
          tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object' } }] }],
          generationConfig: { responseMimeType: 'application/json' },
        },
        h,
      );
      expect(both.json.error).toMatchObject({ status: 'INVALID_ARGUMENT' });
      expect((await post(url, { contents: [] }, h)).status).toBe(400);
      const good = await post(url, ok, h);
      expect(good.json).toMatchObject({ candidates: [{ finishReason: 'STOP' }], modelVersion: 'gemini-2.5-flash' });
    });
  });
});

describe('streaming (SSE) through the real adapters', () => {
  for (const vendor of VENDORS) {
    it(`${vendor.provider}: stream() yields the model's text`, async () => {
      await using(vendor.start({ apiKey: vendor.key }), async (s) => {
        const registry = soclabProviderRegistry({ env: vendor.env(s.url, vendor.key) });
        const options = vendor.request?.deployment ? { deployment: vendor.request.deployment } : undefined;
        const provider = registry.get(vendor.provider, vendor.model, options);
        let text = '';
        for await (const delta of provider.stream({
          stage: 'generate',
          system_prompt: '',
          messages: [{ role: 'user', content: 'hello', trust: 'trusted', tool_name: null }],
          tools: [],
          response_schema: null,
          max_output_tokens: 32,
          temperature: 0,
          run_id: null,
          trace_id: null,
          incident_id: null,
        })) {
          text += delta;
        }
        expect(text).toBe('I can only help with a SOC investigation stage.');
        expect(s.requests.at(-1)!.status).toBe(200);
      });
    });
  }
});
