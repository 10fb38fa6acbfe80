import { describe, expect, it } from 'vitest';
import type { TestCase } from '../../../src/core/testcase.js';
import {
  checkSuiteUnchanged,
  enqueueKeys,
  type PendingKey,
  recoveryNote,
  runOutcome,
} from '../../../src/scale/queue/coordinator-steps.js';
import { jobIdFor } from '../../../src/scale/queue/protocol.js';

function tc(id: string, repeat: number | null = null, tags: string[] = []): TestCase {
  return {
    id,
    name: id,
    description: null,
    input: id,
    evaluators: [],
    tags,
    metadata: {},
    timeout: null,
    repeat,
    vars: {},
  };
}

/** enqueueKeys with a recording addJobs; `giveUpAfter` batches, addJobs answers false (Redis gone). */
async function enqueue(
  cases: TestCase[],
  opts: { skip?: string[]; batchSize?: number; giveUpAfter?: number; filter?: (t: TestCase) => boolean } = {},
) {
  const batches: string[][] = [];
  const pending = new Map<string, PendingKey>();
  const finished = await enqueueKeys({
    cases,
    filter: opts.filter,
    repeat: 2,
    skip: new Set(opts.skip ?? []),
    batchSize: opts.batchSize ?? 500,
    pending,
    addJobs: async (ids) => {
      batches.push(ids);
      return opts.giveUpAfter === undefined || batches.length < opts.giveUpAfter;
    },
  });
  return { batches, pending, finished };
}

describe('enqueueKeys', () => {
  it('enqueues nothing for a run whose keys are all journaled (an empty batch at most)', async () => {
    const { batches, pending, finished } = await enqueue([tc('a', 1)], { skip: ['a#0'] });
    expect(pending.size).toBe(0);
    expect(batches.flat()).toEqual([]);
    expect(finished).toBe(true);
  });

  it('enqueues every case x repeat key not journaled, in suite order, with its suite position', async () => {
    const { batches, pending } = await enqueue([tc('a'), tc('b', 3, ['x']), tc('c')], {
      skip: ['b#1'],
      filter: (t) => t.id !== 'c',
    });
    expect(batches.flat()).toEqual(['a#0', 'a#1', 'b#0', 'b#2'].map(jobIdFor));
    expect(pending.get(jobIdFor('b#2'))).toEqual({ test_id: 'b', test_name: 'b', repeat: 2, index: 1, tags: ['x'] });
  });

  it('sends a small first batch (at most 50) so workers start early, then full batches', async () => {
    const cases = Array.from({ length: 130 }, (_, i) => tc(`c${i}`, 1));
    const { batches } = await enqueue(cases, { batchSize: 40 });
    expect(batches.map((b) => b.length)).toEqual([40, 40, 40, 10]);
    const many = await enqueue(
      Array.from({ length: 300 }, (_, i) => tc(`c${i}`, 1)),
      { batchSize: 200 },
    );
    expect(many.batches.map((b) => b.length)).toEqual([50, 200, 50]);
  });

  it('stops adding when a batch gives up, and says so', async () => {
    const cases = Array.from({ length: 300 }, (_, i) => tc(`c${i}`, 1));
    const { batches, finished } = await enqueue(cases, { batchSize: 100, giveUpAfter: 2 });
    expect(batches.length).toBe(2);
    expect(finished).toBe(false);
  });
});

describe('checkSuiteUnchanged', () => {
  const header = (content_hash: string | undefined) => ({
    id: 'run1',
    suite: { name: 's', version: '1', content_hash },
  });
  it('refuses a resumed queue run whose suite content changed, naming both hashes', () => {
    expect(() => checkSuiteUnchanged(header('aaaaaaaaaaaa0000'), { contentHash: 'bbbbbbbbbbbb1111' })).toThrow(
      /the suite changed since run run1 started \(content bbbbbbbbbbbb vs aaaaaaaaaaaa\)/,
    );
  });
  it('accepts the same content, or a header that recorded none', () => {
    expect(() => checkSuiteUnchanged(header('same'), { contentHash: 'same' })).not.toThrow();
    expect(() => checkSuiteUnchanged(header(undefined), { contentHash: 'any' })).not.toThrow();
  });
});

describe('recoveryNote', () => {
  it('says nothing was lost when a restarted Redis kept the queue', () => {
    expect(recoveryNote('restarted', 0, 5, 3)).toBe(
      'harness: Redis restarted; the queue survived it (persistence), nothing was lost',
    );
  });
  it('tells a lost queue from a partly lost one, and a vanished registration, with what is kept', () => {
    expect(recoveryNote('restarted', 5, 5, 3)).toContain(
      'lost the queue; re-enqueued 5 missing case run(s) (3 result(s)',
    );
    expect(recoveryNote('restarted', 2, 5, 3)).toContain('lost 2 of 5 queued case run(s)');
    expect(recoveryNote('unregistered', 4, 4, 0)).toContain(
      'registration vanished from Redis (flushed or deleted); registered it again and re-enqueued 4',
    );
  });
});

describe('runOutcome', () => {
  it('orders results by suite position then repeat, and is cancelled unless every key was recorded', () => {
    const result = (test_id: string, repeat: number) => ({ test_id, repeat }) as never;
    const progress = { done: 3, total: 4, passed: 3, failed: 0, errors: 0 };
    const out = runOutcome(
      [
        { index: 2, result: result('c', 0) },
        { index: 0, result: result('a', 1) },
        { index: 0, result: result('a', 0) },
      ],
      [],
      progress,
      false,
    );
    expect(out.results.map((r) => `${r.test_id}#${r.repeat}`)).toEqual(['a#0', 'a#1', 'c#0']);
    expect(out.indexes).toEqual([0, 0, 2]);
    expect(out.state).toBe('cancelled');
    expect(runOutcome([], [], progress, true).state).toBe('completed');
  });
});
