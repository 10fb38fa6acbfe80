import { describe, expect, it } from 'vitest';
import type { ResultLocation, RunProgress } from '../../../src/core/execution.js';
import type { TestCaseResult } from '../../../src/core/result.js';
import type { TestCase } from '../../../src/core/testcase.js';
import {
  checkSuiteUnchanged,
  enqueueKeys,
  NoticeFilter,
  OutageWatch,
  type PendingKey,
  ResultBook,
  recoveryNote,
  runOutcome,
  StallWatch,
  Wakeup,
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

describe('OutageWatch', () => {
  function watch(budgetMs = 10_000) {
    const notes: string[] = [];
    const w = new OutageWatch(
      budgetMs,
      'redis://127.0.0.1:6379',
      (m) => notes.push(m),
      () => 'ECONNREFUSED',
    );
    return { w, notes };
  }

  it('says nothing and never gives up while Redis answers', () => {
    const { w, notes } = watch();
    w.reachable(1000);
    w.reachable(50_000);
    expect(notes).toEqual([]);
    expect(w.gaveUp).toBe(false);
  });

  it('announces an outage once and its end once, with how long it lasted', () => {
    const { w, notes } = watch();
    w.unreachable(new Error('x'), 1000);
    w.unreachable(new Error('x'), 2000);
    w.unreachable(new Error('x'), 3500);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('lost the connection to Redis at redis://127.0.0.1:6379 (ECONNREFUSED)');
    expect(notes[0]).toContain('unreachable for 10 s (--queue-outage-budget)');
    w.reachable(4000);
    w.reachable(5000);
    expect(notes).toHaveLength(2);
    expect(notes[1]).toBe('harness: Redis at redis://127.0.0.1:6379 is reachable again after 3.0 s');
    expect(w.gaveUp).toBe(false);
  });

  it('gives up once one outage lasts the budget, not when shorter outages add up to it', () => {
    const { w } = watch(10_000);
    w.unreachable(null, 0);
    w.unreachable(null, 9000);
    w.reachable(9500);
    w.unreachable(null, 10_000);
    w.unreachable(null, 19_999);
    expect(w.gaveUp).toBe(false);
    w.unreachable(null, 20_000);
    expect(w.gaveUp).toBe(true);
  });
});

describe('ResultBook', () => {
  const key = (test_id: string, repeat: number, index: number): PendingKey => ({
    test_id,
    test_name: test_id,
    repeat,
    index,
    tags: [],
  });
  const result = (status: TestCaseResult['status'], test_id = 'from-worker', repeat = 9) =>
    ({ test_id, repeat, status }) as TestCaseResult;

  function book(total = 2) {
    const journaled: { test_id: string; repeat: number; index: number }[] = [];
    const seen: RunProgress[] = [];
    const b = new ResultBook(total, {
      journal: (r, index) => {
        journaled.push({ test_id: r.test_id, repeat: r.repeat, index });
        return { key: `${r.test_id}#${r.repeat}`, test_id: r.test_id, repeat: r.repeat, index } as ResultLocation;
      },
      slim: (r) => ({ ...r, slimmed: true }) as TestCaseResult,
      onResult: (_r, p) => seen.push(p),
    });
    return { b, journaled, seen };
  }

  it('records nothing for a job that is not pending (duplicate delivery, another run)', () => {
    const { b, journaled, seen } = book();
    expect(b.record('nope', result('passed'))).toBe(false);
    b.pending.set('j1', key('a', 0, 0));
    expect(b.record('j1', result('passed'))).toBe(true);
    expect(b.record('j1', result('failed'))).toBe(false);
    expect(journaled).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(b.progress).toEqual({ done: 1, total: 2, passed: 1, failed: 0, errors: 0 });
    expect(b.takeRecorded()).toEqual(['j1']);
    expect(b.takeRecorded()).toEqual([]);
  });

  it("journals under the coordinator's key, keeps the slimmed result, and counts each status", () => {
    const { b, journaled, seen } = book(2);
    b.pending.set('j1', key('a', 1, 3));
    b.pending.set('j2', key('b', 0, 5));
    b.pending.set('j3', key('c', 0, 6));
    b.record('j1', result('error'));
    b.record('j2', result('failed'));
    b.record('j3', result('skipped'));
    expect(journaled).toEqual([
      { test_id: 'a', repeat: 1, index: 3 },
      { test_id: 'b', repeat: 0, index: 5 },
      { test_id: 'c', repeat: 0, index: 6 },
    ]);
    expect(b.kept[0]).toMatchObject({ index: 3, result: { test_id: 'a', repeat: 1, slimmed: true } });
    expect(b.locations.map((l) => l.key)).toEqual(['a#1', 'b#0', 'c#0']);
    // More results than the plan said (total grows); skipped counts as done only.
    expect(b.progress).toEqual({ done: 3, total: 3, passed: 0, failed: 1, errors: 1 });
    // The hook gets a copy per result, not the live counters.
    expect(seen.map((p) => p.done)).toEqual([1, 2, 3]);
    expect(b.pending.size).toBe(0);
  });
});

describe('StallWatch', () => {
  it('never asks while results flow, however long the run', () => {
    const s = new StallWatch(10_000, 0);
    for (let t = 0, done = 0; t < 100_000; t += 5000, done++) expect(s.observe(done, t)).toBe('moving');
  });

  it('asks once nothing came for the stall time, and stays quiet after saying it until results flow again', () => {
    const s = new StallWatch(10_000, 0);
    expect(s.observe(0, 0)).toBe('moving');
    expect(s.observe(0, 9999)).toBe('quiet');
    expect(s.observe(0, 10_000)).toBe('check');
    // Not said (e.g. a worker is connected): asked again next tick.
    expect(s.observe(0, 11_000)).toBe('check');
    expect(s.announce(12_400)).toBe(12);
    expect(s.observe(0, 60_000)).toBe('quiet');
    expect(s.everProcessed).toBe(false);
    expect(s.observe(1, 61_000)).toBe('moving');
    expect(s.everProcessed).toBe(true);
    expect(s.observe(1, 70_999)).toBe('quiet');
    expect(s.observe(1, 71_000)).toBe('check');
  });
});

describe('NoticeFilter', () => {
  it('shows each worker notice once, and again only when it changes', () => {
    const f = new NoticeFilter();
    expect(f.fresh({})).toEqual([]);
    expect(f.fresh({ w1: 'slow provider' })).toEqual([{ worker: 'w1', message: 'slow provider' }]);
    expect(f.fresh({ w1: 'slow provider', w2: 'bad key' })).toEqual([{ worker: 'w2', message: 'bad key' }]);
    expect(f.fresh({ w1: 'recovered', w2: 'bad key' })).toEqual([{ worker: 'w1', message: 'recovered' }]);
  });
});

describe('Wakeup', () => {
  it('waits the full time without a wake, and ends at once on a wake, even one given before the wait', async () => {
    const w = new Wakeup();
    let t = performance.now();
    await w.wait(30);
    expect(performance.now() - t).toBeGreaterThanOrEqual(25);
    w.wake();
    t = performance.now();
    await w.wait(60_000);
    expect(performance.now() - t).toBeLessThan(30_000);
    // A wake is used up by the wait it ended.
    t = performance.now();
    await w.wait(30);
    expect(performance.now() - t).toBeGreaterThanOrEqual(25);
  });
});
