import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

const call = (tool_name: string, args: Record<string, unknown> = {}, status: 'success' | 'error' = 'success') => ({
  tool_name,
  args,
  status,
});
const out = (...calls: ReturnType<typeof call>[]) => ({ output: 'done', tool_calls: calls });

describe('tool_usage', () => {
  const traj = out(
    call('search', { q: 'paris hotels', limit: 5 }),
    call('book', { city: 'Paris', nights: 2 }),
    call('email'),
  );

  it('superset (default): expected tools called, extras allowed', async () => {
    expect((await run('tool_usage', { expected_tools: ['search', 'book'] }, traj)).passed).toBe(true);
    const r = await run('tool_usage', { expected_tools: ['search', 'refund'] }, traj);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain("expected tool 'refund' was not called");
  });
  it('ordered: expected tools must appear as a subsequence', async () => {
    expect((await run('tool_usage', { expected_tools: ['search', 'email'], ordered: true }, traj)).passed).toBe(true);
    const r = await run('tool_usage', { expected_tools: ['book', 'search'], ordered: true }, traj);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('out of order');
  });
  it('strict: same calls in the same order, nothing else', async () => {
    expect(
      (await run('tool_usage', { expected_tools: ['search', 'book', 'email'], mode: 'strict' }, traj)).passed,
    ).toBe(true);
    expect((await run('tool_usage', { expected_tools: ['search', 'book'], mode: 'strict' }, traj)).passed).toBe(false);
    expect((await run('tool_usage', { expected_tools: ['book', 'search', 'email'], exact: true }, traj)).passed).toBe(
      false,
    );
  });
  it('unordered: same multiset of calls in any order', async () => {
    expect(
      (await run('tool_usage', { expected_tools: ['email', 'book', 'search'], mode: 'unordered' }, traj)).passed,
    ).toBe(true);
    const r = await run(
      'tool_usage',
      { expected_tools: ['email', 'book', 'search', 'search'], mode: 'unordered' },
      traj,
    );
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('search');
  });
  it('subset: every actual call is among the expected ones', async () => {
    expect(
      (await run('tool_usage', { expected_tools: ['search', 'book', 'email', 'refund'], mode: 'subset' }, traj)).passed,
    ).toBe(true);
    const r = await run('tool_usage', { expected_tools: ['search', 'book'], mode: 'subset' }, traj);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain("'email' is not among the expected calls");
  });
  it('forbidden tools fail and are counted', async () => {
    const r = await run('tool_usage', { forbidden_tools: ['email'] }, traj);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain("forbidden tool 'email' was called 1 time(s)");
  });
  it('argument matching: subset (default), exact, regex, schema', async () => {
    const exp = (args: Record<string, unknown>, match?: string) => ({
      expected_tools: [{ name: 'book', args, ...(match ? { match } : {}) }],
    });
    expect((await run('tool_usage', exp({ city: 'Paris' }), traj)).passed).toBe(true);
    expect((await run('tool_usage', exp({ city: 'Rome' }), traj)).explanation).toContain(
      'argument \'city\' is "Paris", expected "Rome"',
    );
    expect((await run('tool_usage', exp({ city: 'Paris' }, 'exact'), traj)).passed).toBe(false);
    expect((await run('tool_usage', exp({ city: 'Paris', nights: 2 }, 'exact'), traj)).passed).toBe(true);
    expect((await run('tool_usage', exp({ city: '^Par', nights: '^[1-3]$' }, 'regex'), traj)).passed).toBe(true);
    expect((await run('tool_usage', exp({ city: '^Rom' }, 'regex'), traj)).passed).toBe(false);
    const schema = {
      type: 'object',
      required: ['city', 'nights'],
      properties: { nights: { type: 'integer', maximum: 1 } },
    };
    const r = await run('tool_usage', exp(schema, 'schema'), traj);
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('/nights must be <= 1');
  });
  it('validate_args and tool_args check every call of a tool', async () => {
    const two = out(call('search', { q: 'a' }), call('search', { q: 'b' }));
    expect((await run('tool_usage', { validate_args: { search: { q: 'a' } } }, two)).explanation).toContain(
      "call 2 'search'",
    );
    expect(
      (await run('tool_usage', { tool_args: { search: { args: { q: '^[ab]$' }, match: 'regex' } } }, two)).passed,
    ).toBe(true);
  });
  it('min/max calls in total and per tool', async () => {
    expect((await run('tool_usage', { max_calls: 2 }, traj)).explanation).toContain(
      '3 tool call(s), at most 2 allowed',
    );
    expect((await run('tool_usage', { min_calls: 4 }, traj)).passed).toBe(false);
    expect((await run('tool_usage', { calls: { search: { min: 1, max: 1 } } }, traj)).passed).toBe(true);
    expect((await run('tool_usage', { calls: { email: { max: 0 } } }, traj)).passed).toBe(false);
  });
  it('reports every problem at once', async () => {
    const r = await run('tool_usage', { expected_tools: ['refund'], forbidden_tools: ['email'], max_calls: 1 }, traj);
    expect(r.details.violations).toHaveLength(3);
  });
  it('falls back to the trace when top-level tool_calls is empty', async () => {
    const r = await run(
      'tool_usage',
      { expected_tools: ['lookup'] },
      { output: 'x', trace: { tool_calls: [call('lookup')] } },
    );
    expect(r.passed).toBe(true);
  });
  it('fails an errored output (even with only forbidden tools set)', async () => {
    expect((await run('tool_usage', { forbidden_tools: ['x'] }, { error: 'crash' })).passed).toBe(false);
  });
  it('no calls and no expectations passes; no calls with expectations fails', async () => {
    expect((await run('tool_usage', {}, 'plain answer')).passed).toBe(true);
    expect((await run('tool_usage', { expected_tools: ['a'] }, 'plain answer')).passed).toBe(false);
  });
  it('rejects a bad schema or regex at build time', () => {
    expect(() =>
      build('tool_usage', { expected_tools: [{ name: 'a', args: { type: 'nope' }, match: 'schema' }] }),
    ).toThrow(/invalid JSON Schema/);
    expect(() => build('tool_usage', { tool_args: { a: { args: { x: '(' }, match: 'regex' } } })).toThrow(
      /tool_args\.a\.args\.x/,
    );
    expect(() => build('tool_usage', { mode: 'fuzzy' })).toThrow(/mode/);
  });
});
