import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockProvider, ProviderError } from '@aeh/models';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  Judge,
  JudgeCallError,
  registerJudgeProvider,
  retryAfterSeconds,
  unregisterJudgeProvider,
} from '../../../src/evaluators/support/judge.js';
import { JudgeCacheError, JudgeSession } from '../../../src/evaluators/support/judge-cache.js';
import { JudgeLimiter, resetJudgeLimiters } from '../../../src/evaluators/support/judge-limiter.js';
import { ctx } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
  resetJudgeLimiters();
  unregisterJudgeProvider('scripted_judge');
});

const Verdict = z.strictObject({ reasoning: z.string(), score: z.number().min(0).max(10) });
const request = { stage: 'judge_test', messages: [{ role: 'user' as const, content: 'grade this' }] };

function judgeOver(mock: MockProvider, session = new JudgeSession({ retry: { baseDelayMs: 1, maxDelayMs: 2 } })) {
  registerJudgeProvider('scripted_judge', () => mock);
  return new Judge({ provider: 'scripted_judge', label: 'scripted' }, ctx, {
    session,
    retry: session.retry,
    cache: true,
    maxAttempts: 3,
  });
}

describe('judge call path', () => {
  it('degenerate: a provider that always fails ends in a JudgeCallError naming the judge and its attempts', async () => {
    const mock = new MockProvider({
      fallback: { error: { message: 'upstream 503', status: 503, retryable: true } },
    });
    const judge = judgeOver(mock);
    const err = await judge.ask(request, 'test@1', Verdict).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeCallError);
    expect((err as JudgeCallError).message).toMatch(/^judge scripted failed after 3 attempts: upstream 503/);
    expect(mock.calls).toHaveLength(3);
  });
  it('retries a retryable failure and then reads the verdict; the cache answers the same request without a call', async () => {
    const mock = new MockProvider({
      queue: [
        { error: { message: 'slow down', status: 429, retryable: true } },
        { structured: { reasoning: 'ok', score: 7 }, usage: { input_tokens: 10, output_tokens: 5 } },
      ],
    });
    const session = new JudgeSession({ retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const judge = judgeOver(mock, session);
    const first = await judge.ask(request, 'test@1', Verdict);
    expect(first.verdict).toEqual({ reasoning: 'ok', score: 7 });
    expect(first.record).toMatchObject({ attempts: 2, cached: false, usage: { input_tokens: 10, output_tokens: 5 } });
    const again = await judge.ask(request, 'test@1', Verdict);
    expect(again.record).toMatchObject({ attempts: 0, cached: true, cost: 0 });
    expect(mock.calls).toHaveLength(2);
    expect(session).toMatchObject({ calls: 2, hits: 1 });
  });
  it('a non-retryable failure (400) is not repeated', async () => {
    const mock = new MockProvider({ fallback: { error: { message: 'bad request', status: 400 } } });
    const judge = judgeOver(mock);
    await expect(judge.ask(request, 'test@1', Verdict)).rejects.toThrow(/failed after 1 attempt: bad request/);
    expect(mock.calls).toHaveLength(1);
  });
  it('reads Retry-After from the error, its cause headers (seconds or HTTP date)', () => {
    expect(retryAfterSeconds(new ProviderError('x', { status: 429 }))).toBeUndefined();
    expect(retryAfterSeconds({ cause: { responseHeaders: { 'retry-after': '3' } } })).toBe(3);
    const at = new Date(Date.now() + 10_000).toUTCString();
    const s = retryAfterSeconds({ responseHeaders: { 'retry-after': at } }) as number;
    expect(s).toBeGreaterThan(8);
    expect(s).toBeLessThanOrEqual(10);
    expect(retryAfterSeconds({ retryAfterSeconds: 4, cause: { responseHeaders: { 'retry-after': '9' } } })).toBe(4);
  });
});

describe('JudgeLimiter', () => {
  it('never runs more than maxConcurrency calls at once', async () => {
    const limiter = new JudgeLimiter({ maxConcurrency: 2 });
    let active = 0;
    let peak = 0;
    const task = () =>
      limiter.run(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
      });
    await Promise.all(Array.from({ length: 7 }, task));
    expect(peak).toBe(2);
  });
  it('holds the third call of a 2-per-minute limit until a minute after the first', async () => {
    vi.useFakeTimers();
    const limiter = new JudgeLimiter({ maxConcurrency: 10, requestsPerMinute: 2 });
    const started: number[] = [];
    const t0 = Date.now();
    const calls = Array.from({ length: 3 }, () => limiter.run(async () => started.push(Date.now() - t0)));
    await vi.advanceTimersByTimeAsync(59_000);
    expect(started).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(calls);
    expect(started).toHaveLength(3);
    expect(started[2]).toBeGreaterThanOrEqual(60_000);
  });
  it('a stricter evaluator tightens the shared limit, a looser one does not loosen it', () => {
    const limiter = new JudgeLimiter({ maxConcurrency: 4, requestsPerMinute: 100 });
    limiter.tighten({ maxConcurrency: 2 });
    limiter.tighten({ maxConcurrency: 8, requestsPerMinute: 500 });
    expect(limiter.limits).toEqual({ maxConcurrency: 2, requestsPerMinute: 100 });
  });
});

describe('JudgeSession files', () => {
  it('persists replies to every attached folder once, reloads them, and names file:line for damage', () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-judge-cache-'));
    const session = new JudgeSession({ scrub: (t) => t.replaceAll('sk-secret-9999', '[REDACTED]') });
    session.persistTo(d);
    const entry = {
      type: 'judge_reply' as const,
      key: 'a'.repeat(64),
      provider: 'openai',
      model: 'gpt-4o-mini',
      finish_reason: 'stop',
      output_text: 'leaked sk-secret-9999',
      structured: null,
      tool_call: null,
      usage: { input_tokens: 1, output_tokens: 1, estimated: false },
      cost: null,
      cost_is_estimated: true,
      latency_ms: 1,
    };
    session.put(entry);
    session.put(entry);
    const text = readFileSync(join(d, 'judge-cache.jsonl'), 'utf8');
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).not.toContain('sk-secret-9999');
    const again = new JudgeSession();
    expect(again.load(d)).toBe(1);
    again.persistTo(d); // attaching the file it was loaded from does not duplicate it
    expect(readFileSync(join(d, 'judge-cache.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    writeFileSync(join(d, 'judge-cache.jsonl'), `${text}{"type":"judge_reply","key":"zz"}\n{}\n`);
    expect(() => new JudgeSession().load(d)).toThrow(JudgeCacheError);
    expect(() => new JudgeSession().load(d)).toThrow(/judge-cache\.jsonl:2: key: /);
  });
});
