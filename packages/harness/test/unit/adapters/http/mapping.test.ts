import { describe, expect, it } from 'vitest';
import { compileMapping, ResponseMapping } from '../../../../src/adapters/http/mapping.js';

describe('compileMapping', () => {
  const reply = {
    answer: 'Paris',
    steps: [
      { tool: 'search', input: { q: 'capital' }, out: 'ok' },
      { tool: 'lookup', input: '{"id":7}', failed: true },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    price: '0.002',
    model: 'm1',
  };

  it('maps output, tool calls, usage, cost and metadata', () => {
    const m = compileMapping(
      ResponseMapping.parse({
        output: '$.answer',
        tool_calls: '$.steps[*]',
        usage: '$.usage',
        cost: '$.price',
        metadata: { model: '$.model' },
      }),
    );
    expect(m.apply(reply)).toMatchObject({
      output: 'Paris',
      tool_calls: [
        { tool_name: 'search', args: { q: 'capital' } },
        { tool_name: 'lookup', args: { id: 7 } },
      ],
      usage: { input_tokens: 10, output_tokens: 5 },
      cost: 0.002,
      metadata: { model: 'm1' },
    });
  });

  it('maps tool calls field by field and accepts an array path without a wildcard', () => {
    const m = compileMapping(
      ResponseMapping.parse({
        tool_calls: { path: '$.steps', name: '$.tool', args: '$.input', result: '$.out' },
        usage: { input_tokens: '$.usage.prompt_tokens' },
      }),
    );
    const out = m.apply(reply);
    expect(out.tool_calls?.[0]).toMatchObject({ tool_name: 'search', result: 'ok' });
    expect(out.usage).toEqual({ input_tokens: 10, output_tokens: 0, estimated: false });
  });

  it('maps an agent-reported error and names a bad path', () => {
    expect(compileMapping({ error: '$.err' }).apply({ err: 'refused' }).error).toBe('refused');
    expect(compileMapping({ error: '$.err' }).apply({ err: null }).error).toBeUndefined();
    expect(() => compileMapping({ tool_calls: { path: '$.s[' } })).toThrowError(
      /response.tool_calls.path: invalid JSON path/,
    );
  });
});
