import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../../src/adapters/base.js';
import { ModelOptions, type ModelOptionsInput } from '../../../src/adapters/model/options.js';
import { modelAdapter } from '../../../src/adapters/model.js';
import { TestCase } from '../../../src/core/testcase.js';

function ctx(input: unknown, signal = new AbortController().signal): RunContext {
  return {
    signal,
    testCase: TestCase.parse({ id: 'm-1', name: 'model case', input }),
    repeat: 0,
    attempt: 1,
    vars: { tone: 'terse' },
  };
}

const make = (o: ModelOptionsInput) => modelAdapter.create(ModelOptions.parse(o), { baseDir: '.', env: {} });

describe('model adapter with the scripted mock provider', () => {
  it('templates the prompt and records output, usage, cost and the transcript', async () => {
    const agent = await make({
      provider: 'mock',
      system: 'Be {{vars.tone}}.',
      prompt: 'Q: {{input}}',
      script: [
        { match: 'capital', reply: { text: 'Paris', usage: { input_tokens: 9, output_tokens: 1 }, cost_usd: 0.0002 } },
      ],
    });
    const out = await agent.run('capital of France?', ctx('capital of France?'));
    expect(out).toMatchObject({
      output: 'Paris',
      error: null,
      usage: { input_tokens: 9, output_tokens: 1, estimated: false },
      cost: 0.0002,
      metadata: { provider: 'mock', model: 'mock-model', finish_reason: 'stop' },
    });
    expect(out.trace?.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Q: capital of France?' },
      { role: 'assistant', content: 'Paris' },
    ]);
    // Unscripted inputs fall back to an echo, with usage estimated and marked so.
    const echo = await agent.run('hello', ctx('hello'));
    expect(echo.output).toBe('echo: Q: hello');
    expect(echo.usage?.estimated).toBe(true);
  });

  it('returns structured output and tool proposals', async () => {
    const structured = await make({
      provider: 'mock',
      response_schema: { type: 'object', properties: { city: { type: 'string' } } },
      script: [{ reply: { structured: { city: 'Rome' } } }],
    });
    expect((await structured.run('capital of Italy', ctx('x'))).output).toEqual({ city: 'Rome' });

    const tool = await make({
      provider: 'mock',
      tools: [{ name: 'get_weather', description: 'weather', parameters: { type: 'object' } }],
      script: [{ reply: { tool_call: { name: 'get_weather', arguments: { city: 'Oslo' } } } }],
    });
    const out = await tool.run('weather in Oslo?', ctx('x'));
    expect(out.tool_calls).toEqual([expect.objectContaining({ tool_name: 'get_weather', args: { city: 'Oslo' } })]);
    expect(out.metadata.finish_reason).toBe('tool_proposal');
  });

  it('streams and records time to first token', async () => {
    const agent = await make({
      provider: 'mock',
      stream: true,
      script: [{ reply: { chunks: ['Hel', 'lo', '!'], delay_ms: 30 } }],
    });
    const out = await agent.run('hi', ctx('hi'));
    expect(out.output).toBe('Hello!');
    expect(out.time_to_first_token).toBeGreaterThanOrEqual(0.025);
    expect(out.usage?.estimated).toBe(true);
  });

  it('classifies provider errors: 429 is transient and flagged as a rate limit, others are not', async () => {
    const agent = await make({
      provider: 'mock',
      script: [
        { match: 'busy', reply: { error: { message: 'slow down', status: 429, retryable: true } } },
        { match: 'bad', reply: { error: { type: 'malformed', message: 'not JSON' } } },
      ],
    });
    const busy = await agent.run('busy', ctx('busy'));
    expect(busy).toMatchObject({ transient: true, metadata: { http_status: 429, rate_limited: true } });
    expect(busy.error).toBe('mock/mock-model: ProviderError: slow down');
    const bad = await agent.run('bad', ctx('bad'));
    expect(bad.error).toBe('mock/mock-model: MalformedResponseError: not JSON');
    expect(bad.transient).toBeUndefined();
  });

  it('honours the abort signal', async () => {
    const agent = await make({ provider: 'mock', script: [{ reply: { text: 'late', delay_ms: 5000 } }] });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const out = await agent.run('x', ctx('x', ac.signal));
    expect(out.error).toMatch(/aborted/);
  });

  it('rejects bad scripts and unknown or unconfigured providers when created', async () => {
    await expect(make({ provider: 'mock', script: [{ reply: { text: 3 } }] })).rejects.toThrowError(
      /script\[0\]\.reply\.text/,
    );
    await expect(make({ provider: 'nope' })).rejects.toThrowError(/unknown provider 'nope'/);
    await expect(make({ provider: 'openai_compatible' })).rejects.toThrowError(/set OPENAI_COMPATIBLE_BASE_URL/);
  });
});
