import { describe, expect, it } from 'vitest';
import { replyToOutput, toToolCall, toToolCalls, toUsage } from '../../../src/adapters/normalize.js';

describe('normalize', () => {
  it('reads tool calls in the common shapes', () => {
    expect(toToolCall({ tool_name: 'a', args: { x: 1 }, result: 2, duration: 0.5 })).toMatchObject({
      tool_name: 'a',
      args: { x: 1 },
      result: 2,
      duration: 0.5,
      status: 'success',
    });
    expect(toToolCall({ function: { name: 'b', arguments: '{"y":2}' } })).toMatchObject({
      tool_name: 'b',
      args: { y: 2 },
    });
    expect(toToolCall({ name: 'c', input: 'raw', is_error: true, duration_ms: 250 })).toMatchObject({
      args: { value: 'raw' },
      status: 'error',
      duration: 0.25,
    });
    expect(toToolCall({ nothing: true })).toBeNull();
    expect(toToolCalls([{ tool: 'x' }, 3, null])).toHaveLength(1);
  });

  it('reads usage with vendor field names', () => {
    expect(toUsage({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      input_tokens: 3,
      output_tokens: 4,
      estimated: false,
    });
    expect(toUsage({ inputTokens: 1 })).toEqual({ input_tokens: 1, output_tokens: 0, estimated: false });
    expect(toUsage({})).toBeNull();
  });

  it('turns a protocol reply into an AgentOutput and reports shapes it cannot accept', () => {
    const out = replyToOutput({ output: 'hi', usage: { input_tokens: 1, output_tokens: 2 }, cost: 0.01 }, 0.2);
    expect(out).toMatchObject({ output: 'hi', latency: 0.2, cost: 0.01, error: null });
    expect(replyToOutput({ output: [1, 2] }, null).output).toBe('[1,2]');
    expect(replyToOutput({ output: '', error: 'boom' }, null).error).toBe('boom');
    const bad = replyToOutput({ output: 'x', trace: { tool_calls: [{ tool_name: '' }] } }, null);
    expect(bad.error).toMatch(/does not fit the output shape at 'trace.tool_calls.0.tool_name'/);
  });
});
