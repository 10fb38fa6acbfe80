import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

type Status = 'success' | 'error';
const call = (tool_name: string, args: Record<string, unknown> = {}, status: Status = 'success') => ({
  tool_name,
  args,
  status,
});
const out = (...calls: ReturnType<typeof call>[]) => ({ output: 'done', tool_calls: calls });
const refundTrajectory = out(
  call('lookup_order', { order_id: 'ORD-12345' }),
  call('get_weather'),
  call('check_policy', { kind: 'refund' }),
  call('issue_refund', { order_id: 'ORD-12345', amount: 40 }),
);

describe('tool_sequence', () => {
  it('finds an ordered subsequence with other calls in between', async () => {
    const r = await run(
      'tool_sequence',
      { sequence: ['lookup_order', 'check_policy', 'issue_refund'] },
      refundTrajectory,
    );
    expect(r).toMatchObject({ passed: true, score: 1 });
  });
  it('scores the share found and says where it broke', async () => {
    const r = await run(
      'tool_sequence',
      { sequence: ['lookup_order', 'issue_refund', 'check_policy'] },
      refundTrajectory,
    );
    expect(r.passed).toBe(false);
    expect(r.score).toBeCloseTo(2 / 3);
    expect(r.explanation).toContain("step 3 ('check_policy')");
  });
  it('contiguous forbids calls in between', async () => {
    expect(
      (await run('tool_sequence', { sequence: ['lookup_order', 'check_policy'], contiguous: true }, refundTrajectory))
        .passed,
    ).toBe(false);
    expect(
      (await run('tool_sequence', { sequence: ['check_policy', 'issue_refund'], contiguous: true }, refundTrajectory))
        .passed,
    ).toBe(true);
  });
  it('matches arguments in sequence entries', async () => {
    const seq = [{ name: 'issue_refund', args: { amount: 40 } }];
    expect((await run('tool_sequence', { sequence: seq }, refundTrajectory)).passed).toBe(true);
    expect(
      (await run('tool_sequence', { sequence: [{ name: 'issue_refund', args: { amount: 400 } }] }, refundTrajectory))
        .passed,
    ).toBe(false);
  });
  it('requires a non-empty sequence', () => {
    expect(() => build('tool_sequence', { sequence: [] })).toThrow(/sequence/);
  });
});

describe('tool_args_valid', () => {
  const schemas = {
    lookup_order: {
      type: 'object',
      required: ['order_id'],
      properties: { order_id: { type: 'string', pattern: '^ORD-\\d{5}$' } },
    },
    issue_refund: {
      type: 'object',
      required: ['order_id', 'amount'],
      properties: { amount: { type: 'number', maximum: 100 } },
    },
  };
  it('passes when every call with a schema validates', async () => {
    const r = await run('tool_args_valid', { schemas }, refundTrajectory);
    expect(r).toMatchObject({ passed: true, score: 1 });
    expect(r.details.checked).toBe(2);
  });
  it('lists each violation with the call and path; score is the valid share', async () => {
    const bad = out(call('lookup_order', { order_id: '123' }), call('issue_refund', { amount: 500 }));
    const r = await run('tool_args_valid', { schemas }, bad);
    expect(r.passed).toBe(false);
    expect(r.score).toBe(0);
    expect(r.explanation).toContain("call 1 'lookup_order' /order_id must match pattern");
    expect(r.explanation).toContain("call 2 'issue_refund' / is missing required property 'order_id'");
    expect(r.explanation).toContain('/amount must be <= 100');
  });
  it('require_schema flags tools without a schema', async () => {
    const r = await run('tool_args_valid', { schemas, require_schema: true }, refundTrajectory);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('no schema declared');
  });
  it('rejects an invalid schema at build time with its path', () => {
    expect(() => build('tool_args_valid', { schemas: { a: { type: 'bogus' } } })).toThrow(
      /schemas\.a: invalid JSON Schema/,
    );
  });
});

describe('step_count', () => {
  it('bounds tool calls by default', async () => {
    expect((await run('step_count', { max: 4 }, refundTrajectory)).passed).toBe(true);
    expect((await run('step_count', { max: 3 }, refundTrajectory)).explanation).toBe(
      '4 tool calls, more than the maximum 3',
    );
    expect((await run('step_count', { min: 1 }, 'no tools')).passed).toBe(false);
  });
  it('can count trace messages, assistant messages or spans', async () => {
    const trace = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
      spans: [{ span_id: 's1', name: 'llm', start_ms: 0, end_ms: 5 }],
    };
    expect((await run('step_count', { count: 'messages', max: 3 }, { output: 'x', trace })).passed).toBe(true);
    expect((await run('step_count', { count: 'assistant_messages', max: 1 }, { output: 'x', trace })).passed).toBe(
      false,
    );
    expect((await run('step_count', { count: 'spans', min: 1, max: 1 }, { output: 'x', trace })).passed).toBe(true);
  });
  it('requires a bound', () => {
    expect(() => build('step_count', {})).toThrow(/min and\/or max/);
  });
});

describe('tool_error_rate', () => {
  const flaky = out(call('a'), call('b', {}, 'error'), call('c'), call('b', {}, 'error'));
  it('fails any tool error by default and scores 1 - rate', async () => {
    const r = await run('tool_error_rate', {}, flaky);
    expect(r.passed).toBe(false);
    expect(r.score).toBe(0.5);
    expect(r.explanation).toContain('2 of 4 tool call(s) failed');
  });
  it('passes within the allowed rate; no calls passes', async () => {
    expect((await run('tool_error_rate', { max: 0.5 }, flaky)).passed).toBe(true);
    expect((await run('tool_error_rate', {}, 'no tools')).passed).toBe(true);
  });
});

describe('mcp_tool_usage', () => {
  it('passes when the required tool was invoked (default database_query)', async () => {
    expect((await run('mcp_tool_usage', {}, out(call('database_query')))).passed).toBe(true);
    const r = await run('mcp_tool_usage', {}, out(call('web_search')));
    expect(r.passed).toBe(false);
    expect(r.explanation).toBe("required tool 'database_query' missing (invoked: web_search)");
  });
  it('accepts server-qualified names unless disabled', async () => {
    expect((await run('mcp_tool_usage', { required_tool: 'query' }, out(call('db__query')))).passed).toBe(true);
    expect(
      (await run('mcp_tool_usage', { required_tool: 'query', allow_namespaced: false }, out(call('db__query')))).passed,
    ).toBe(false);
  });
  it('checks several tools and reads the trace when tool_calls is empty', async () => {
    const r = await run(
      'mcp_tool_usage',
      { required_tool: ['a', 'b'] },
      { output: 'x', trace: { tool_calls: [call('a')] } },
    );
    expect(r.score).toBe(0.5);
    expect(r.details.missing).toEqual(['b']);
  });
});
