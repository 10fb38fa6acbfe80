import { describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { RateLimiter, withRateLimit } from '../../../src/adapters/rate-limit.js';
import { agentOutput } from '../../../src/core/agent.js';
import { itemAt } from '../../../src/core/item-at.js';

const ok = agentOutput({ output: 'ok' });
const limited = agentOutput({
  output: '',
  error: 'HTTP 429',
  transient: true,
  retry_after: 0.05,
  metadata: { http_status: 429, rate_limited: true },
});

function ctx(signal = new AbortController().signal): RunContext {
  return {
    signal,
    testCase: { id: 't', name: 't' } as RunContext['testCase'],
    repeat: 0,
    attempt: 1,
    vars: {},
  };
}

describe('RateLimiter', () => {
  it('never lets more than max_concurrency calls run at once', async () => {
    let running = 0;
    let peak = 0;
    const agent: Agent = {
      async run() {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return ok;
      },
    };
    const wrapped = withRateLimit(agent, { max_concurrency: 3, adaptive: true });
    const outs = await Promise.all(Array.from({ length: 20 }, () => wrapped.run('x', ctx())));
    expect(outs.every((o) => o.output === 'ok')).toBe(true);
    expect(peak).toBe(3);
  });

  it('spaces request starts to honour requests_per_minute', async () => {
    const starts: number[] = [];
    const agent: Agent = {
      async run() {
        starts.push(Date.now());
        return ok;
      },
    };
    const wrapped = withRateLimit(agent, { requests_per_minute: 1200 }); // one every 50 ms
    await Promise.all(Array.from({ length: 4 }, () => wrapped.run('x', ctx())));
    expect(starts).toHaveLength(4);
    // Three gaps of 50 ms between four starts: the last cannot start before ~150 ms after the first.
    expect(itemAt(starts, 3) - itemAt(starts, 0)).toBeGreaterThanOrEqual(140);
  });

  it('halves concurrency and pauses after a 429, then recovers additively', async () => {
    let t = 0;
    const limiter = new RateLimiter({ maxConcurrency: 8, now: () => t });
    const signal = new AbortController().signal;
    for (let i = 0; i < 8; i++) expect(await limiter.acquire(signal)).toBe(true);
    limiter.release(limited);
    expect(limiter.limit).toBe(4);
    // Paused for Retry-After (50 ms): nothing starts even though slots are free.
    for (let i = 0; i < 7; i++) limiter.release(ok);
    let started = false;
    const pending = limiter.acquire(signal).then((v) => {
      started = v;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toBe(false);
    t += 60;
    await new Promise((r) => setTimeout(r, 80));
    await pending;
    expect(started).toBe(true);
    limiter.release(ok);
    const before = limiter.limit;
    for (let i = 0; i < 10; i++) {
      await limiter.acquire(signal);
      limiter.release(ok);
    }
    expect(limiter.limit).toBeGreaterThan(before);
    expect(limiter.limit).toBeLessThanOrEqual(8);
  });

  it('gives up waiting when the case is aborted', async () => {
    const limiter = new RateLimiter({ maxConcurrency: 1 });
    const signal = new AbortController().signal;
    await limiter.acquire(signal);
    const ac = new AbortController();
    const waiting = limiter.acquire(ac.signal);
    ac.abort();
    expect(await waiting).toBe(false);
    expect(limiter.queued).toBe(0);
  });

  it('turns an adapter that throws into an error output', async () => {
    const wrapped = withRateLimit(
      {
        async run() {
          throw new Error('kaboom');
        },
      },
      { max_concurrency: 1 },
    );
    expect((await wrapped.run('x', ctx())).error).toBe('agent failed: kaboom');
    expect((await wrapped.run('x', ctx())).error).toBe('agent failed: kaboom');
  });
});
