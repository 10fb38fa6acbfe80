import { describe, expect, it } from 'vitest';
import { runPool } from '../../../src/runner/scheduler.js';

describe('runPool', () => {
  it('a huge concurrency (--concurrency 1e9) costs no more than the items it runs', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await runPool([1, 2, 3], 1e9, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(n);
      inFlight--;
    });
    expect(seen.sort()).toEqual([1, 2, 3]);
    expect(peak).toBe(3);
  }, 10_000);

  it('still keeps `concurrency` items in flight and no more', async () => {
    let inFlight = 0;
    let peak = 0;
    let count = 0;
    await runPool(
      Array.from({ length: 20 }, (_, i) => i),
      4,
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        count++;
      },
    );
    expect(count).toBe(20);
    expect(peak).toBe(4);
  });

  it('a failing worker stops the pool and its error is thrown', async () => {
    await expect(
      runPool([1, 2, 3, 4], 2, async (n) => {
        if (n === 2) throw new Error('worker failed');
      }),
    ).rejects.toThrow('worker failed');
  });
});
