import { describe, expect, it } from 'vitest';
import { createOpenAIProvider, MalformedResponseError, type ModelProvider, ProviderError } from '../../../src/index.js';
import { replay, socRequest } from './replay.js';

const KEY = 'sk-test-contract-0000000000';

function provider(...fixtures: string[]): { p: ModelProvider; r: ReturnType<typeof replay> } {
  const r = replay(...fixtures);
  return { p: createOpenAIProvider({ apiKey: KEY, fetch: r.fetch }), r };
}

describe('openai adapter against recorded fixtures', () => {
  it('structured output: parses the chosen tool, reports vendor usage, estimates cost', async () => {
    const { p, r } = provider('openai_structured');
    const res = await p.generateStructured(socRequest());
    expect(res.structured).toMatchObject({ tool: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } });
    expect(res.finish_reason).toBe('stop');
    expect(res.usage).toEqual({ input_tokens: 412, output_tokens: 23, estimated: false });
    expect(res.cost_is_estimated).toBe(true);
    // (412 × 0.15 + 23 × 0.60) / 1e6 = 0.0000756, rounded to 6 decimals
    expect(res.estimated_cost_usd).toBe(0.000076);
    expect(res.model).toBe('gpt-4o-mini-2024-07-18');

    const sent = r.last();
    expect(sent.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body.response_format).toEqual({ type: 'json_object' });
    const messages = sent.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: socRequest().system_prompt });
    expect(messages[2]?.role).toBe('user');
    expect(messages[2]?.content).toMatch(/^\[trust=untrusted\] /);
    expect(sent.body.tool_choice).toBe('auto');
    expect((sent.body.tools as unknown[]).length).toBe(5);
  });

  it('tool proposal: lookup_indicator(198.51.100.77) with finish tool_proposal', async () => {
    const { p, r } = provider('openai_tool_call');
    const res = await p.requestTool(socRequest());
    expect(res.tool_call).toEqual({ name: 'lookup_indicator', arguments: { indicator: '198.51.100.77' } });
    expect(res.finish_reason).toBe('tool_proposal');
    expect(res.structured).toBeNull();
    expect(r.last().body.response_format).toBeUndefined();
  });

  it('malformed output: prose is MalformedResponseError on the structured path but plain text on generate', async () => {
    const { p } = provider('openai_malformed');
    const err = await p.generateStructured(socRequest()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as Error).message).toMatch(/non-JSON/);
    const plain = await p.generate(socRequest());
    expect(plain.output_text).toMatch(/^Sure!/);
    expect(plain.structured).toBeNull();
  });

  it('finish length on the structured path is malformed, never a guessed object', async () => {
    const { p } = provider('openai_length');
    await expect(p.generateStructured(socRequest())).rejects.toThrow(/finish reason 'length'/);
  });

  it('a 200 without choices is malformed', async () => {
    const { p } = provider('openai_no_choices');
    await expect(p.generateStructured(socRequest())).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('provider error: 401 becomes ProviderError with the status, and the key never appears', async () => {
    const { p } = provider('openai_error');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).not.toBeInstanceOf(MalformedResponseError);
    expect(err.status).toBe(401);
    expect(err.code).toBe('authentication_rejected');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/^openai request failed: APICallError: Incorrect API key/);
    expect(err.message).not.toContain(KEY);
  });

  it('429 is a retryable ProviderError and is not retried by the adapter itself', async () => {
    const { p, r } = provider('openai_rate_limited');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryable: true });
    expect(r.calls).toHaveLength(1);
  });

  it('SDK connection error: ProviderError naming the error class', async () => {
    const { p } = provider('connection-error');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toMatch(/^openai request failed: APICallError: Cannot connect to API/);
    expect(err.code).toBe('connection_failed');
  });

  it('streams text deltas', async () => {
    const { p } = provider('openai_stream.sse');
    const parts: string[] = [];
    for await (const chunk of p.stream(socRequest())) parts.push(chunk);
    expect(parts.join('')).toBe('The sign-in from 198.51.100.77 is unfamiliar.');
  });

  it('continueAfterTool sends the tool result as an untrusted, labelled user message', async () => {
    const { p, r } = provider('openai_structured');
    await p.continueAfterTool(socRequest(), 'get_identity_profile', { user_id: 'u-alex-rivera', mfa: 'push' });
    const messages = r.last().body.messages as Array<{ role: string; content: string }>;
    expect(messages.at(-1)?.content).toBe(
      '[tool:get_identity_profile trust=untrusted] {"user_id":"u-alex-rivera","mfa":"push"}',
    );
  });
});
