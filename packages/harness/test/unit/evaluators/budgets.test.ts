import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('latency_budget', () => {
  it('passes within budget and fails over it', async () => {
    expect((await run('latency_budget', { max: 2 }, { output: 'x', latency: 1.5 })).passed).toBe(true);
    expect((await run('latency_budget', { max: 2 }, { output: 'x', latency: 2.5 })).explanation).toBe(
      'latency 2.500s exceeds 2s',
    );
  });
  it('checks time to first token when asked and fails when it was not recorded', async () => {
    expect(
      (await run('latency_budget', { max: 5, max_ttft: 0.5 }, { output: 'x', latency: 1, time_to_first_token: 0.2 }))
        .passed,
    ).toBe(true);
    expect((await run('latency_budget', { max: 5, max_ttft: 0.5 }, { output: 'x', latency: 1 })).explanation).toContain(
      'not recorded',
    );
  });
  it('requires max', () => {
    expect(() => build('latency_budget', {})).toThrow(/max/);
  });
});

describe('cost_budget', () => {
  it('compares reported cost with the budget', async () => {
    expect((await run('cost_budget', { max: 0.01 }, { output: 'x', cost: 0.005 })).passed).toBe(true);
    const r = await run('cost_budget', { max: 0.01 }, { output: 'x', cost: 0.02, cost_is_estimated: true });
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('(estimated)');
  });
  it('unknown cost fails unless allowed', async () => {
    expect((await run('cost_budget', { max: 1 }, 'x')).passed).toBe(false);
    expect((await run('cost_budget', { max: 1, allow_missing: true }, 'x')).passed).toBe(true);
  });
});

describe('token_budget', () => {
  const usage = { input_tokens: 900, output_tokens: 300 };
  it('checks total, input and output limits and lists every excess', async () => {
    expect((await run('token_budget', { max: 1500 }, { output: 'x', usage })).passed).toBe(true);
    const r = await run('token_budget', { max: 1000, max_output: 200 }, { output: 'x', usage });
    expect(r.explanation).toBe('1200 tokens exceed 1000; 300 output tokens exceed 200');
    expect((await run('token_budget', { max_input: 800 }, { output: 'x', usage })).passed).toBe(false);
  });
  it('unknown usage fails unless allowed; a limit is required', async () => {
    expect((await run('token_budget', { max: 10 }, 'x')).passed).toBe(false);
    expect((await run('token_budget', { max: 10, allow_missing: true }, 'x')).passed).toBe(true);
    expect(() => build('token_budget', {})).toThrow(/at least one of max/);
  });
});
