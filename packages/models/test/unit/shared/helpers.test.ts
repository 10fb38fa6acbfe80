import { describe, expect, it } from 'vitest';
import {
  buildResponse,
  estimateCostUsd,
  estimateTokens,
  MalformedResponseError,
  ModelRequest,
  openAIStyleMessages,
  openAIStyleTools,
  parseStructured,
  parseToolArguments,
  Timer,
} from '../../../src/index.js';

describe('token estimate', () => {
  it('is max(1, floor(len/4))', () => {
    expect(estimateTokens('')).toBe(1);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcdefghi')).toBe(2);
  });
});

describe('price table', () => {
  it('estimates cost rounded to 6 decimals and returns null for unknown models', () => {
    expect(estimateCostUsd('gpt-4o', { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBe(12.5);
    expect(estimateCostUsd('claude-sonnet-4-20250514', { input_tokens: 1000, output_tokens: 100 })).toBe(0.0045);
    expect(estimateCostUsd('gpt-4o-mini-2024-07-18', { input_tokens: 1_000_000, output_tokens: 0 })).toBe(0.15);
    expect(estimateCostUsd('my-local-model', { input_tokens: 10, output_tokens: 10 })).toBeNull();
  });
});

describe('parseStructured', () => {
  it('accepts a bare object and a fenced one', () => {
    expect(parseStructured(' {"a":1} ')).toEqual({ a: 1 });
    expect(parseStructured('```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(parseStructured('```\n{"a":3}\n```')).toEqual({ a: 3 });
  });
  it('never guesses: prose, arrays and scalars are malformed', () => {
    expect(() => parseStructured('Sure! {"a":1}')).toThrow(MalformedResponseError);
    expect(() => parseStructured('Sure! {"a":1}')).toThrow(/non-JSON text/);
    expect(() => parseStructured('[1,2]')).toThrow(/not an object \(got an array\)/);
    expect(() => parseStructured('null')).toThrow(/not an object/);
  });
});

describe('parseToolArguments', () => {
  it('passes objects, parses strings, treats empty as {}', () => {
    expect(parseToolArguments({ ip: '1' })).toEqual({ ip: '1' });
    expect(parseToolArguments('{"ip":"1"}')).toEqual({ ip: '1' });
    expect(parseToolArguments('')).toEqual({});
    expect(() => parseToolArguments('{ip')).toThrow(MalformedResponseError);
    expect(() => parseToolArguments('[1]')).toThrow(/not a JSON object/);
  });
});

describe('OpenAI-style messages', () => {
  it('puts the system prompt first and keeps trust labels visible', () => {
    const req = ModelRequest.parse({
      system_prompt: 'sys',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'tool', content: '{"x":1}', trust: 'untrusted', tool_name: 'lookup' },
        { role: 'assistant', content: 'ok' },
      ],
    });
    expect(openAIStyleMessages(req)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: '[trust=trusted] hello' },
      { role: 'user', content: '[tool:lookup trust=untrusted] {"x":1}' },
      { role: 'assistant', content: 'ok' },
    ]);
    expect(openAIStyleTools([{ name: 't', description: 'd', parameters: { type: 'object' } }])).toEqual([
      { type: 'function', function: { name: 't', description: 'd', parameters: { type: 'object' } } },
    ]);
  });
});

describe('buildResponse', () => {
  const base = {
    provider: 'p',
    model: 'gpt-4o',
    text: '{"a":1}',
    toolCall: null,
    usage: { input_tokens: 1000, output_tokens: 100, estimated: false },
    latencyMs: 5,
    wantStructured: true,
  } as const;

  it('parses structured text and estimates cost', () => {
    const r = buildResponse({ ...base, finish: 'stop' });
    expect(r.structured).toEqual({ a: 1 });
    expect(r.estimated_cost_usd).toBe(0.0035);
    expect(r.cost_is_estimated).toBe(true);
  });
  it('keeps a vendor-reported cost as not estimated', () => {
    const r = buildResponse({ ...base, finish: 'stop', reportedCostUsd: 0.01 });
    expect(r).toMatchObject({ estimated_cost_usd: 0.01, cost_is_estimated: false });
  });
  it('a tool call forces tool_proposal and skips structured parsing', () => {
    const r = buildResponse({ ...base, text: 'thinking', finish: 'stop', toolCall: { name: 'x', arguments: {} } });
    expect(r).toMatchObject({ finish_reason: 'tool_proposal', structured: null });
  });
  it('a tool name outside ^[a-z][a-z0-9_]*$ is malformed', () => {
    expect(() =>
      buildResponse({ ...base, finish: 'stop', toolCall: { name: 'Disable-Account', arguments: {} } }),
    ).toThrow(MalformedResponseError);
  });
  it('structured calls cut short are malformed; error finishes carry no structured output', () => {
    expect(() => buildResponse({ ...base, finish: 'content_filter' })).toThrow(/content_filter/);
    expect(buildResponse({ ...base, finish: 'error' }).structured).toBeNull();
  });
});

describe('Timer', () => {
  it('measures non-negative milliseconds and freezes on stop', () => {
    const t = new Timer();
    const a = t.stop();
    expect(a).toBeGreaterThanOrEqual(0);
    expect(t.stop()).toBe(a);
  });
});
