import { describe, expect, it } from 'vitest';
import { createAnthropicProvider, MalformedResponseError, ProviderError } from '../../../src/index.js';
import { replay, socRequest } from './replay.js';

const KEY = 'sk-ant-test-contract-000000';

function provider(...fixtures: string[]) {
  const r = replay(...fixtures);
  return { p: createAnthropicProvider({ apiKey: KEY, fetch: r.fetch }), r };
}

describe('anthropic adapter against recorded fixtures', () => {
  it('structured output: instruction in the system prompt, user-first alternating roles, vendor usage', async () => {
    const { p, r } = provider('anthropic_structured');
    const res = await p.generateStructured(socRequest());
    expect(res.structured).toMatchObject({
      tool: 'get_authentication_history',
      arguments: { user_id: 'u-alex-rivera' },
    });
    expect(res.usage).toEqual({ input_tokens: 388, output_tokens: 31, estimated: false });
    expect(res.estimated_cost_usd).toBe(0.001629);
    expect(res.cost_is_estimated).toBe(true);

    const sent = r.last();
    expect(sent.url).toBe('https://api.anthropic.com/v1/messages');
    expect(sent.headers['x-api-key']).toBe(KEY);
    const system = JSON.stringify(sent.body.system);
    expect(system).toMatch(/single JSON object/);
    const messages = sent.body.messages as Array<{ role: string; content: Array<{ text: string }> }>;
    expect(messages[0]?.role).toBe('user');
    expect(new Set(messages.map((m) => m.role))).toEqual(new Set(['user']));
    expect(messages[0]?.content[0]?.text).toContain('[trust=untrusted] ');
    expect(sent.body.max_tokens).toBe(1024);
  });

  it('an assistant-first history gets a leading user turn and same-role turns are merged', async () => {
    const { p, r } = provider('anthropic_structured');
    await p.generateStructured(
      socRequest({
        messages: [
          { role: 'assistant', content: 'Ready.', trust: 'trusted', tool_name: null },
          { role: 'user', content: 'a', trust: 'trusted', tool_name: null },
          { role: 'tool', content: 'b', trust: 'untrusted', tool_name: 'search_siem_events' },
        ],
      }),
    );
    const messages = r.last().body.messages as Array<{ role: string; content: Array<{ text: string }> }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0]?.content[0]?.text).toBe('Begin.');
    expect(messages[2]?.content[0]?.text).toBe('[trust=trusted] a\n[tool:search_siem_events trust=untrusted] b');
  });

  it('tool_use: get_endpoint_status with the accompanying text kept', async () => {
    const { p } = provider('anthropic_tool_use');
    const res = await p.requestTool(socRequest());
    expect(res.tool_call).toEqual({ name: 'get_endpoint_status', arguments: { device_id: 'dev-laptop-042' } });
    expect(res.finish_reason).toBe('tool_proposal');
    expect(res.output_text).toBe('Checking the endpoint.');
  });

  it('malformed output: prose on the structured path throws, plain generate returns it', async () => {
    const { p } = provider('anthropic_malformed');
    await expect(p.generateStructured(socRequest())).rejects.toBeInstanceOf(MalformedResponseError);
    expect((await p.generate(socRequest())).output_text).toMatch(/looks compromised/);
  });

  it('provider error: 529 overloaded is a retryable ProviderError', async () => {
    const { p } = provider('anthropic_error');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).not.toBeInstanceOf(MalformedResponseError);
    expect(err).toMatchObject({ status: 529, code: 'provider_unavailable' });
    expect(err.message).toMatch(/^anthropic request failed: APICallError: Overloaded/);
  });
});
