import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../../src/runner/journal.js';
import { openStore, type RunStore } from '../../../src/store/index.js';
import { defined } from '../../helpers/defined.js';
import {
  endLine,
  fixtureExperiment,
  fixtureResult,
  resultLine,
  writeRunFolder,
} from '../../unit/store/run-fixtures.js';
import { createTempDatabase, PG_URL, requirePgOrSkip, type TempDatabase } from './pg-database.js';

const havePg = requirePgOrSkip();

interface Backend {
  name: 'sqlite' | 'postgres';
  open(runsDir: string): Promise<{ store: RunStore; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    async open(runsDir) {
      const store = await openStore({ runsDir });
      return { store, cleanup: async () => {} };
    },
  },
];
if (havePg && PG_URL) {
  const base = PG_URL;
  backends.push({
    name: 'postgres',
    async open(runsDir) {
      const db: TempDatabase = await createTempDatabase(base);
      const store = await openStore({ runsDir, store: db.url });
      return { store, cleanup: () => db.drop() };
    },
  });
}

describe.each(backends)('run index on $name', (backend) => {
  let runsDir: string;
  let store: RunStore;
  let cleanup: () => Promise<void>;
  const folders: Record<string, string> = {};

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), `store-${backend.name}-`));
    // Three runs of "support" where case c2 flips pass/fail/pass, c3 is always failing, c4 has mixed repeats.
    folders.r1 = writeRunFolder(runsDir, {
      id: 'run-2026-01-01-aaa',
      suite: 'support',
      startedAt: '2026-01-01T10:00:00Z',
      agentLabel: 'v1',
      metrics: { success_rate: { value: 0.5, interval: { lower: 0.2, upper: 0.8 }, sample_size: 4 } },
      cases: [
        { id: 'c1', status: 'passed', tags: ['billing'], evals: { exact_match: true, contains: true } },
        { id: 'c2', status: 'passed', tags: ['billing', 'refund'], evals: { exact_match: true } },
        { id: 'c3', status: 'failed', tags: ['auth'], evals: { exact_match: false } },
        { id: 'c4', status: 'failed', evals: { exact_match: false } },
      ],
    });
    folders.r2 = writeRunFolder(runsDir, {
      id: 'run-2026-01-02-bbb',
      suite: 'support',
      startedAt: '2026-01-02T10:00:00Z',
      agentLabel: 'v2',
      metrics: { success_rate: { value: 0.25, interval: { lower: 0.05, upper: 0.7 }, sample_size: 4 } },
      cases: [
        { id: 'c1', status: 'passed', tags: ['billing'], evals: { exact_match: true } },
        { id: 'c2', status: 'failed', tags: ['billing', 'refund'], score: 0.2, evals: { exact_match: 0.2 } },
        { id: 'c3', status: 'failed', tags: ['auth'], evals: { exact_match: false } },
        { id: 'c4', status: 'passed', repeat: 0, evals: { exact_match: true } },
        { id: 'c4', status: 'failed', repeat: 1, evals: { exact_match: false } },
      ],
    });
    folders.r3 = writeRunFolder(runsDir, {
      id: 'run-2026-01-03-ccc',
      suite: 'support',
      startedAt: '2026-01-03T10:00:00Z',
      agentLabel: 'v3',
      metrics: { success_rate: { value: 0.75, interval: { lower: 0.3, upper: 0.95 }, sample_size: 4 } },
      cases: [
        { id: 'c1', status: 'passed', tags: ['billing'], evals: { exact_match: true } },
        {
          id: 'c2',
          name: 'refund_100% <script>alert(1)</script>',
          status: 'passed',
          tags: ['billing', 'refund'],
          output: 'done \u0000 <b>bold</b>',
          evals: { exact_match: true },
          toolCalls: [{ tool_name: 'lookup_order', args: { id: 42 }, result: { ok: true } }],
        },
        { id: 'c3', status: 'error', tags: ['auth'], evals: { exact_match: false } },
        { id: 'c4', status: 'passed', evals: { exact_match: true } },
        { id: 'c5', status: 'skipped' },
      ],
    });
    folders.other = writeRunFolder(runsDir, {
      id: 'run-2026-01-02-zzz',
      suite: 'other-suite',
      startedAt: '2026-01-02T12:00:00Z',
      cases: [{ id: 'x1', status: 'passed' }],
    });
    ({ store, cleanup } = await backend.open(runsDir));
    const sync = await store.syncIndex(runsDir);
    expect(sync.errors).toEqual([]);
    expect(sync.indexed).toHaveLength(4);
  });

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('lists runs newest first with counts, pass rate and metrics', async () => {
    const page = await store.listRuns();
    expect(page.total).toBe(4);
    expect(page.items.map((r) => r.id)).toEqual([
      'run-2026-01-03-ccc',
      'run-2026-01-02-zzz',
      'run-2026-01-02-bbb',
      'run-2026-01-01-aaa',
    ]);
    const r3 = defined(page.items[0], 'the newest run');
    expect(r3).toMatchObject({
      suite_name: 'support',
      state: 'completed',
      total: 5,
      passed: 3,
      failed: 0,
      errored: 1,
      skipped: 1,
    });
    expect(r3.pass_rate).toBeCloseTo(3 / 4);
    expect(r3.metrics.success_rate).toMatchObject({ value: 0.75, lower: 0.3, upper: 0.95, sample_size: 4 });
    expect(r3.location).toBe(folders.r3);

    const support = await store.listRuns({ suite: 'support', limit: 2, offset: 1 });
    expect(support.total).toBe(3);
    expect(support.items.map((r) => r.id)).toEqual(['run-2026-01-02-bbb', 'run-2026-01-01-aaa']);
  });

  it('finds a run by id, unique prefix or folder, and explains ambiguity', async () => {
    expect(await store.resolveRunId('run-2026-01-03')).toBe('run-2026-01-03-ccc');
    expect(await store.resolveRunId(defined(folders.r1, 'the folder of run r1'))).toBe('run-2026-01-01-aaa');
    expect(await store.resolveRunId('run-run-2026-01-02-bbb')).toBe('run-2026-01-02-bbb');
    await expect(store.resolveRunId('run-2026-01-02')).rejects.toThrow(/matches 2 runs/);
    await expect(store.resolveRunId('nope')).rejects.toThrow(/no stored run matches 'nope'/);
    // LIKE wildcards in a reference are literal.
    await expect(store.resolveRunId('run_2026')).rejects.toThrow(/no stored run/);
  });

  it('shows a run with its evaluators and tags', async () => {
    const run = await store.getRun('run-2026-01-02-bbb');
    expect(run.header.agent.label).toBe('v2');
    expect(run.evaluators).toEqual([
      {
        evaluator: 'exact_match',
        cases: 5,
        passed: 2,
        errors: 0,
        mean_score: expect.closeTo((1 + 0.2 + 0 + 1 + 0) / 5, 6),
      },
    ]);
    expect(run.tags).toEqual([
      { tag: 'auth', cases: 1, passed: 0 },
      { tag: 'billing', cases: 2, passed: 1 },
      { tag: 'refund', cases: 1, passed: 0 },
    ]);
  });

  it('pages and filters cases by status, tag, evaluator and text', async () => {
    const id = 'run-2026-01-03-ccc';
    const all = await store.listCases(id);
    expect(all.total).toBe(5);
    expect(all.items.map((c) => c.test_id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);

    const page2 = await store.listCases(id, { offset: 2, limit: 2 });
    expect(page2.items.map((c) => c.test_id)).toEqual(['c3', 'c4']);
    expect(page2.total).toBe(5);

    expect((await store.listCases(id, { status: ['error', 'skipped'] })).items.map((c) => c.test_id)).toEqual([
      'c3',
      'c5',
    ]);
    expect((await store.listCases(id, { tag: 'refund' })).items.map((c) => c.test_id)).toEqual(['c2']);
    const evalFailed = await store.listCases(id, { evaluator: 'exact_match', evaluatorPassed: false });
    expect(evalFailed.items.map((c) => c.test_id)).toEqual(['c3']);
    expect((await store.listCases(id, { evaluator: 'exact_match' })).total).toBe(4);
    expect((await store.listCases(id, { q: 'REFUND_100%' })).items.map((c) => c.test_id)).toEqual(['c2']);
    expect((await store.listCases(id, { q: 'refund_1000' })).total).toBe(0);
    expect(
      (await store.listCases(id, { tag: 'billing', status: ['passed'], q: 'c1' })).items.map((c) => c.test_id),
    ).toEqual(['c1']);

    const byScore = await store.listCases('run-2026-01-02-bbb', { sort: 'score', limit: 3 });
    expect(byScore.items.map((c) => [c.test_id, c.score])).toEqual([
      ['c3', 0],
      ['c4', 0],
      ['c2', 0.2],
    ]);
    const row = defined(all.items[1], 'case row 1');
    expect(row.evaluations).toEqual([{ evaluator: 'exact_match', score: 1, passed: true, error: false }]);
    expect(row.tags).toEqual(['billing', 'refund']);
  });

  it('returns a case in full, keeping untrusted text as data', async () => {
    const c = await store.getCase('run-2026-01-03-ccc', 'c2', 0);
    expect(c?.test_name).toBe('refund_100% <script>alert(1)</script>');
    expect(c?.output.tool_calls[0]).toMatchObject({
      tool_name: 'lookup_order',
      args: { id: 42 },
      result: { ok: true },
    });
    // PostgreSQL cannot hold NUL in text or jsonb: it becomes U+FFFD there; SQLite keeps it.
    expect(c?.output.output).toBe(backend.name === 'postgres' ? 'done \ufffd <b>bold</b>' : 'done \u0000 <b>bold</b>');
    expect(c?.evaluations[0]?.explanation).toBe('exact_match says yes');
    expect(await store.getCase('run-2026-01-03-ccc', 'c2', 7)).toBeNull();
  });

  it('gives a metric history oldest first and lists suites', async () => {
    const points = await store.metricHistory('support', 'success_rate');
    expect(points.map((p) => [p.id, p.value, p.lower, p.upper, p.agent_label])).toEqual([
      ['run-2026-01-01-aaa', 0.5, 0.2, 0.8, 'v1'],
      ['run-2026-01-02-bbb', 0.25, 0.05, 0.7, 'v2'],
      ['run-2026-01-03-ccc', 0.75, 0.3, 0.95, 'v3'],
    ]);
    expect((await store.metricHistory('support', 'success_rate', { limit: 2 })).map((p) => p.id)).toEqual([
      'run-2026-01-02-bbb',
      'run-2026-01-03-ccc',
    ]);
    expect(await store.metricHistory('support', 'nope')).toEqual([]);
    const suites = await store.listSuites();
    expect(suites.map((s) => [s.suite_name, s.runs])).toEqual([
      ['support', 3],
      ['other-suite', 1],
    ]);
    expect(suites[0]?.metrics).toEqual(['success_rate']);
  });

  it('finds flaky cases with flip rates and marks quarantined ones', async () => {
    const report = await store.flakyCases('support', { quarantine: ['c2'] });
    expect(report.runs_considered).toBe(3);
    const byId = Object.fromEntries(report.flaky.map((f) => [f.test_id, f]));
    expect(Object.keys(byId).sort()).toEqual(['c2', 'c4']);
    expect(byId.c2).toMatchObject({ runs: 3, flips: 2, flip_rate: 1, passes: 2, executions: 3, quarantined: true });
    expect(defined(byId.c2, 'flaky case c2').history.map((h) => h.outcome)).toEqual(['pass', 'fail', 'pass']);
    expect(byId.c4).toMatchObject({ runs: 3, flips: 2, mixed_runs: 1, quarantined: false });
    expect(defined(byId.c4, 'flaky case c4').history.map((h) => h.outcome)).toEqual(['fail', 'mixed', 'pass']);
    // Equal flip rates: the pass rate nearest 50% (c4: 2 of 4) ranks first.
    expect(report.flaky.map((f) => f.test_id)).toEqual(['c4', 'c2']);
    // Over the last two runs c2 changed once (fail -> pass): a fix, not flakiness; c4's repeats disagreed.
    const recent = await store.flakyCases('support', { window: 2, minRuns: 2 });
    expect(recent.flaky.map((f) => f.test_id)).toEqual(['c4']);
    expect((await store.flakyCases('support', { agent: 'v1', minRuns: 2 })).flaky).toEqual([]);
  });

  it('computes per-case deltas between two runs', async () => {
    const { counts, deltas } = await store.caseDeltas('run-2026-01-01-aaa', 'run-2026-01-03-ccc');
    expect(counts).toEqual({
      regressed: 0,
      fixed: 1,
      still_failing: 1,
      still_passing: 2,
      only_baseline: 0,
      only_candidate: 0,
    });
    expect(deltas[0]).toMatchObject({ test_id: 'c4', change: 'fixed', score_delta: 1 });
    const back = await store.caseDeltas('run-2026-01-01-aaa', 'run-2026-01-02-bbb');
    expect(back.counts.regressed).toBe(1);
    expect(back.deltas[0]).toMatchObject({ test_id: 'c2', change: 'regressed' });
    expect(back.deltas[0]?.score_delta).toBeCloseTo(-0.8);
    // c4 has one passing and one failing repeat in bbb: it does not count as passing.
    expect(back.deltas.find((d) => d.test_id === 'c4')).toMatchObject({
      change: 'still_failing',
      candidate: { pass_rate: 0.5 },
    });
  });

  it('indexes a live run incrementally, then its end', async () => {
    const live = writeRunFolder(runsDir, {
      id: 'run-live',
      suite: 'live-suite',
      startedAt: '2026-01-04T10:00:00Z',
      state: 'running',
      cases: [{ id: 'l1', status: 'passed' }],
    });
    const first = await store.indexRun(live);
    expect(first).toMatchObject({ id: 'run-live', state: 'running', results: 1, incremental: false });
    expect((await store.getRun('run-live')).total).toBe(1);

    // A half-written line is left for the next read.
    const half = resultLine({ id: 'l3', status: 'passed' });
    appendFileSync(join(live, 'journal.jsonl'), resultLine({ id: 'l2', status: 'failed' }) + half.slice(0, 20));
    const second = await store.indexRun(live);
    expect(second).toMatchObject({ incremental: true, results: 1 });
    expect(await store.getRun('run-live')).toMatchObject({ total: 2, passed: 1, failed: 1, state: 'running' });

    appendFileSync(
      join(live, 'journal.jsonl'),
      half.slice(20) +
        resultLine({ id: 'l2', status: 'passed' }) +
        endLine('completed', { success_rate: { value: 1 } }),
    );
    const third = await store.indexRun(live);
    expect(third).toMatchObject({ incremental: true, state: 'completed' });
    const run = await store.getRun('run-live');
    expect(run).toMatchObject({ total: 3, passed: 3, failed: 0, state: 'completed' });
    expect(run.metrics.success_rate?.value).toBe(1);
    expect((await store.listCases('run-live')).items.map((c) => c.test_id)).toEqual(['l1', 'l3', 'l2']);
    expect(await store.indexRun(live)).toMatchObject({ unchanged: true });
  });

  it('tells how long a run marked running has been idle (killed without an end record)', async () => {
    const { utimesSync } = await import('node:fs');
    const stuck = writeRunFolder(runsDir, {
      id: 'run-stuck',
      suite: 'stuck-suite',
      startedAt: '2026-01-04T11:00:00Z',
      state: 'running',
      cases: [{ id: 's1', status: 'passed' }],
    });
    await store.indexRun(stuck);
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(join(stuck, 'journal.jsonl'), hourAgo, hourAgo);
    const run = await store.getRun('run-stuck');
    expect(run.state).toBe('running');
    expect(run.idle_seconds).toBeGreaterThanOrEqual(3599);
    expect((await store.getRun('run-2026-01-01-aaa')).idle_seconds).toBeNull();
  });

  it('tolerates duplicates, malformed and truncated lines in a journal', async () => {
    const folder = writeRunFolder(runsDir, {
      id: 'run-messy',
      suite: 'messy',
      startedAt: '2026-01-05T10:00:00Z',
      state: 'running',
      cases: [
        { id: 'm1', status: 'failed' },
        { id: 'm2', status: 'passed' },
        { id: 'm1', status: 'passed' },
      ],
      tail: 'this is not json\n{"type":"result","result":{"test_id":"m3","sta',
    });
    const outcome = await store.indexRun(folder, { incremental: false });
    expect(outcome).toMatchObject({ results: 2, malformed: 1 });
    const run = await store.getRun('run-messy');
    expect(run).toMatchObject({ total: 2, passed: 2, failed: 0 });
  });

  it('indexes a folder that only has experiment.json, re-indexes idempotently, removes and rebuilds', async () => {
    const dir = join(runsDir, 'json-only');
    const exp = fixtureExperiment({
      id: 'run-json-only',
      suite: 'json-suite',
      startedAt: '2026-01-06T10:00:00Z',
      cases: [
        { id: 'j1', status: 'passed' },
        { id: 'j2', status: 'failed' },
      ],
      metrics: { accuracy: { value: 0.5 } },
    });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'experiment.json'), JSON.stringify(exp));
    await store.indexRun(dir);
    await store.indexRun(dir);
    expect(await store.getRun('run-json-only')).toMatchObject({
      total: 2,
      passed: 1,
      metrics: { accuracy: { value: 0.5 } },
    });

    const removed = await store.removeRun('run-json-only');
    expect(removed.id).toBe('run-json-only');
    await expect(store.getRun('run-json-only')).rejects.toThrow(/no stored run/);

    const before = (await store.listRuns({ limit: 100 })).total;
    const rebuilt = await store.rebuildIndex(runsDir);
    expect(rebuilt.errors).toEqual([]);
    const after = await store.listRuns({ limit: 100 });
    expect(after.total).toBe(before + 1);
    expect(await store.getRun('run-2026-01-03-ccc')).toMatchObject({ total: 5, passed: 3 });
    const sync = await store.syncIndex(runsDir);
    expect(sync.indexed).toEqual([]);
    expect(sync.unchanged).toBe(after.total);
  });

  it('reads a journal written by the runner in suite order and streams it back', async () => {
    const { mkdirSync } = await import('node:fs');
    const folder = join(runsDir, 'runner-written');
    mkdirSync(folder);
    const { results, ...header } = fixtureExperiment({
      id: 'run-by-writer',
      suite: 'writer-suite',
      startedAt: '2026-01-07T10:00:00Z',
      cases: [],
    });
    const journal = JournalWriter.create(join(folder, 'journal.jsonl'));
    journal.header({ ...header, state: 'running' });
    // Finished out of order (concurrency); `index` is the suite position.
    journal.result(fixtureResult({ id: 'w3', status: 'passed' }), 2);
    journal.result(fixtureResult({ id: 'w1', status: 'failed', repeat: 1 }), 0);
    journal.write({ type: 'resume', at: '2026-01-07T10:05:00Z' });
    journal.result(fixtureResult({ id: 'w2', status: 'passed' }), 1);
    journal.result(fixtureResult({ id: 'w1', status: 'passed', repeat: 0 }), 0);
    journal.end({ state: 'completed', finished_at: '2026-01-07T10:06:00Z', metrics: {}, thresholds: null });
    journal.close();
    expect(results).toEqual([]);

    const outcome = await store.indexRun(folder);
    expect(outcome).toMatchObject({ id: 'run-by-writer', results: 4, malformed: 0, state: 'completed' });
    const order = (await store.listCases('run-by-writer')).items.map((c) => `${c.test_id}#${c.repeat}`);
    expect(order).toEqual(['w1#0', 'w1#1', 'w2#0', 'w3#0']);
    const view = await store.runView('run-by-w');
    expect(view.header.state).toBe('completed');
    const streamed: string[] = [];
    for await (const r of view.results()) streamed.push(`${r.test_id}#${r.repeat}:${r.status}`);
    expect(streamed).toEqual(['w1#0:passed', 'w1#1:failed', 'w2#0:passed', 'w3#0:passed']);
  });
});
