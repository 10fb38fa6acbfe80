import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuiltins } from '../../../src/cli/common.js';
import type { SuiteLike } from '../../../src/core/suite.js';
import type { TestCase } from '../../../src/core/testcase.js';
import { AgentRunner } from '../../../src/runner/agent-runner.js';
import { runExperiment } from '../../../src/runner/experiment.js';
import { indexJournal } from '../../../src/runner/journal.js';
import { checkThresholds } from '../../../src/runner/thresholds.js';
import { scriptedAgent } from '../../helpers/plugins.js';

function tc(id: string, input: string, extra: Partial<TestCase> = {}): TestCase {
  return {
    id,
    name: id,
    description: null,
    input,
    expected: input.replace(/^sleep:\d+ /, ''),
    evaluators: [],
    tags: [],
    metadata: {},
    timeout: null,
    repeat: null,
    vars: {},
    ...extra,
  };
}

const fastRetry = { baseDelayMs: 1, maxDelayMs: 5 };

describe('AgentRunner', () => {
  it('returns results in case-then-repeat order whatever the completion order', async () => {
    const runner = new AgentRunner(scriptedAgent(), {
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      concurrency: 4,
      repeat: 2,
    });
    // Earlier cases sleep longer, so they finish last.
    const cases = [tc('a', 'sleep:60 a'), tc('b', 'sleep:30 b'), tc('c', 'sleep:1 c')];
    const out = await runner.run(cases);
    expect(out.results.map((r) => `${r.test_id}#${r.repeat}`)).toEqual(['a#0', 'a#1', 'b#0', 'b#1', 'c#0', 'c#1']);
    expect(out.results.every((r) => r.status === 'passed')).toBe(true);
  });

  it('records a throwing agent as an error on that case only', async () => {
    const runner = new AgentRunner(scriptedAgent(), { evaluators: [{ name: 't_equals', options: {}, weight: 1 }] });
    const out = await runner.run([tc('ok1', 'hello'), tc('bad', 'throw now'), tc('ok2', 'world')]);
    const byId = Object.fromEntries(out.results.map((r) => [r.test_id, r]));
    expect(byId.bad?.status).toBe('error');
    expect(byId.bad?.output.error).toContain('agent exploded');
    expect(byId.ok1?.status).toBe('passed');
    expect(byId.ok2?.status).toBe('passed');
  });

  it('records a throwing evaluator as an error on that case only', async () => {
    const runner = new AgentRunner(scriptedAgent(), {
      evaluators: [
        { name: 't_equals', options: {}, weight: 1 },
        { name: 't_throws', options: {}, weight: 1 },
      ],
    });
    const cases = [tc('x', 'fine'), tc('y', 'boom'), tc('z', 'also fine')];
    const runnerResults: Record<string, unknown> = {};
    const out = await runner.run(cases, { onResult: (r) => (runnerResults[r.test_id] = r) });
    const y = out.results.find((r) => r.test_id === 'y');
    expect(y?.status).toBe('error');
    const full = runnerResults.y as { evaluations: { evaluator: string; error: boolean; explanation: string }[] };
    expect(full.evaluations[1]).toMatchObject({ evaluator: 't_throws', error: true });
    expect(full.evaluations[1]?.explanation).toContain('evaluator exploded');
    expect(out.results.filter((r) => r.status === 'passed').map((r) => r.test_id)).toEqual(['x', 'z']);
  });

  it('aborts a case that exceeds its timeout and discards the late reply', async () => {
    let sawAbort = false;
    const agent = {
      async run(_input: unknown, ctx: { signal: AbortSignal }) {
        ctx.signal.addEventListener('abort', () => (sawAbort = true));
        await new Promise((r) => setTimeout(r, 400));
        return { output: 'late reply' };
      },
    };
    const runner = new AgentRunner(agent as never, {
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      timeout: 0.05,
    });
    const full: unknown[] = [];
    const out = await runner.run([tc('slow', 'slow input')], { onResult: (r) => full.push(r) });
    // Give the late reply time to arrive: it must not change anything.
    await new Promise((r) => setTimeout(r, 450));
    expect(out.results[0]?.status).toBe('error');
    expect(out.results[0]?.output.error).toMatch(/timed out after 0.05s/);
    expect(sawAbort).toBe(true);
    expect(full).toHaveLength(1);
    expect(JSON.stringify(full)).not.toContain('late reply');
  });

  it('a timeout longer than a timer can hold (--timeout 1e12, timeout: 1e9) does not time out at once', async () => {
    const agent = {
      async run(input: unknown) {
        await new Promise((r) => setTimeout(r, 20));
        return { output: input };
      },
    };
    for (const timeout of [1e12, 1e9, 2_147_484]) {
      const runner = new AgentRunner(agent as never, {
        evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
        timeout,
      });
      const out = await runner.run([tc('a', 'hi'), tc('b', 'yo', { timeout })]);
      expect(out.results.map((r) => [r.status, r.output.error ?? null])).toEqual([
        ['passed', null],
        ['passed', null],
      ]);
    }
  });

  it('a cancelled run records what finished and drops a case in flight, even one that ignores its signal', async () => {
    let sawAbort = false;
    const run = new AbortController();
    const agent = {
      async run(input: unknown, ctx: { signal: AbortSignal }) {
        if (input === 'quick') return { output: 'quick' };
        ctx.signal.addEventListener('abort', () => (sawAbort = true));
        run.abort();
        // Never answers: the runner must not wait for it.
        return new Promise(() => {});
      },
    };
    const runner = new AgentRunner(agent as never, {
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      concurrency: 1,
    });
    const out = await runner.run([tc('a', 'quick'), tc('b', 'hang'), tc('c', 'quick')], { signal: run.signal });
    expect(out.state).toBe('cancelled');
    expect(out.results.map((r) => r.test_id)).toEqual(['a']);
    expect(sawAbort).toBe(true);
  });

  it('one listener on the run signal however many cases are in flight; cancelling reaches each of them', async () => {
    const run = new AbortController();
    const aborted: string[] = [];
    let started = 0;
    let listenersSeen = -1;
    const agent = {
      run(input: unknown, ctx: { signal: AbortSignal }) {
        ctx.signal.addEventListener('abort', () => aborted.push(String(input)));
        started++;
        // All eight are in flight: count the run signal's listeners, then cancel the run.
        if (started === 8) {
          listenersSeen = getEventListeners(run.signal, 'abort').length;
          run.abort();
        }
        return new Promise(() => {});
      },
    };
    const runner = new AgentRunner(agent as never, { concurrency: 8 });
    const cases = Array.from({ length: 8 }, (_, i) => tc(`k${i}`, `in${i}`));
    const out = await runner.run(cases, { signal: run.signal });
    expect(out.state).toBe('cancelled');
    expect(out.results).toEqual([]);
    expect(listenersSeen).toBe(1);
    expect(aborted.sort()).toEqual(cases.map((c) => String(c.input)).sort());
  });

  it('retries outputs marked transient, then records success', async () => {
    const calls: { input: string; attempt: number }[] = [];
    const runner = new AgentRunner(scriptedAgent(calls), {
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      retry: { ...fastRetry, maxAttempts: 3 },
    });
    const out = await runner.run([tc('f', 'flaky thing')]);
    expect(out.results[0]?.status).toBe('passed');
    expect(out.results[0]?.attempts).toBe(3);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
  });

  it('stops retrying when the run-wide retry budget is spent', async () => {
    const calls: { input: string; attempt: number }[] = [];
    const runner = new AgentRunner(scriptedAgent(calls), {
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      retry: { ...fastRetry, maxAttempts: 5, budget: 2 },
      concurrency: 1,
    });
    const out = await runner.run([tc('p', 'always-503 a'), tc('q', 'always-503 b')]);
    expect(out.results.map((r) => r.status)).toEqual(['error', 'error']);
    // 2 first attempts + 2 budgeted retries in total.
    expect(calls.length).toBe(4);
    expect(out.retriesUsed).toBe(2);
  });

  it('turns a throwing metric into an errored metric result', async () => {
    const runner = new AgentRunner(scriptedAgent(), { metrics: ['t_pass_rate', 't_broken'] });
    const metrics = runner.computeMetrics([]);
    expect(metrics.t_pass_rate?.value).toBe(0);
    expect(metrics.t_broken).toMatchObject({ formatted_value: 'ERR', error: 'metric exploded' });
  });

  it('fails before any case runs when an evaluator is unknown', () => {
    expect(
      () => new AgentRunner(scriptedAgent(), { evaluators: [{ name: 't_equalz', options: {}, weight: 1 }] }),
    ).toThrow(/unknown evaluator 't_equalz'; did you mean 't_equals'/);
  });
});

describe('checkThresholds', () => {
  const m = (name: string, value: number, interval?: { lower: number; upper: number }) => ({
    name,
    value,
    formatted_value: String(value),
    direction: 'higher_is_better' as const,
    description: null,
    interval: interval ? { ...interval, level: 0.95 } : null,
    details: {},
  });
  it('checks the value or an interval bound', () => {
    const metrics = { acc: m('acc', 0.9, { lower: 0.7, upper: 0.97 }), lat: m('lat', 2) };
    expect(checkThresholds(metrics, { acc: { minimum: 0.8 } }).passed).toBe(true);
    const lb = checkThresholds(metrics, { acc: { minimum: 0.8, on: 'lower_bound' } });
    expect(lb.passed).toBe(false);
    expect(lb.violations[0]).toMatchObject({ condition: 'minimum', actual_value: 0.7, on: 'lower_bound' });
    expect(checkThresholds(metrics, { lat: { maximum: 1.5 } }).violations[0]?.message).toContain('above the maximum');
    expect(checkThresholds(metrics, { lat: { minimum: 0, on: 'upper_bound' } }).violations[0]?.condition).toBe(
      'missing',
    );
    expect(checkThresholds(metrics, { nope: { minimum: 1 } }).violations[0]?.condition).toBe('missing');
  });
});

describe('runExperiment', () => {
  function suiteOf(cases: TestCase[], extra: Partial<SuiteLike> = {}): SuiteLike {
    return {
      name: 'unit suite',
      version: '1.0',
      baseDir: process.cwd(),
      contentHash: 'abc',
      totalCases: cases.length,
      agent: { adapter: 'none', options: { api_key: 'sk-live-123456' } },
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      metrics: ['t_pass_rate'],
      thresholds: { t_pass_rate: { minimum: 0.9, on: 'value' } },
      cases: () => cases,
      ...extra,
    };
  }

  it('journals every result, writes experiment.json and fails the gate with exit code 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const res = await runExperiment({
      suite: suiteOf([tc('a', 'one'), tc('b', 'throw'), tc('c', 'three')]),
      agent: scriptedAgent(),
      outDir: join(dir, 'run'),
    });
    expect(res.state).toBe('completed');
    expect(res.metrics.t_pass_rate?.value).toBeCloseTo(2 / 3);
    expect(res.thresholds?.passed).toBe(false);
    expect(res.exitCode).toBe(1);
    const exp = JSON.parse(readFileSync(res.experimentPath, 'utf8'));
    expect(exp.state).toBe('completed');
    expect(exp.results.map((r: { test_id: string }) => r.test_id)).toEqual(['a', 'b', 'c']);
    expect(exp.agent.options.api_key).toBe('[REDACTED]');
    const idx = indexJournal(res.journalPath);
    expect(idx.results).toHaveLength(3);
    expect(idx.end?.state).toBe('completed');
  });

  it('a run with no case runs passes no threshold (error_rate, latency, reliability read 0 / 100% of nothing)', async () => {
    await loadBuiltins();
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const res = await runExperiment({
      suite: suiteOf([], {
        metrics: ['error_rate', 'latency', 'reliability'],
        thresholds: {
          error_rate: { maximum: 0.1, on: 'value' },
          latency: { maximum: 2, on: 'value' },
          reliability: { minimum: 0.9, on: 'value' },
        },
      }),
      agent: scriptedAgent(),
      outDir: join(dir, 'run'),
    });
    expect(res.state).toBe('completed');
    expect(res.thresholds?.passed).toBe(false);
    expect(res.thresholds?.violations.map((v) => [v.metric_name, v.condition])).toEqual([
      ['error_rate', 'missing'],
      ['latency', 'missing'],
      ['reliability', 'missing'],
    ]);
    expect(res.thresholds?.violations[0]?.message).toMatch(/no case runs/);
    expect(res.exitCode).toBe(1);
  });

  it('fails before any case runs when an evaluator setup check fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const calls: { input: string; attempt: number }[] = [];
    await expect(
      runExperiment({
        suite: suiteOf([tc('a', 'one')], { evaluators: [{ name: 't_unready', options: {}, weight: 1 }] }),
        agent: scriptedAgent(calls),
        outDir: join(dir, 'run'),
      }),
    ).rejects.toThrow(/not configured; set OPENAI_API_KEY/);
    expect(calls).toHaveLength(0);
  });

  it('a reproducible run takes its header id and start/finish times from the caller; a normal run does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const at = new Date(1_700_000_000_000);
    const fixed = await runExperiment({
      suite: suiteOf([tc('a', 'one')]),
      agent: scriptedAgent(),
      outDir: join(dir, 'fixed'),
      reproducible: { id: 'abc123def456', now: () => at },
    });
    const exp = JSON.parse(readFileSync(fixed.experimentPath, 'utf8'));
    expect([exp.id, exp.started_at, exp.finished_at]).toEqual(['abc123def456', at.toISOString(), at.toISOString()]);
    const normal = await runExperiment({
      suite: suiteOf([tc('a', 'one')]),
      agent: scriptedAgent(),
      outDir: join(dir, 'n'),
    });
    const header = JSON.parse(readFileSync(normal.experimentPath, 'utf8'));
    expect(header.id).toMatch(/^[0-9a-f]{12}$/);
    expect(header.id).not.toBe('abc123def456');
    expect(Date.parse(header.started_at)).toBeGreaterThan(at.getTime());
  });

  it('runs only the missing keys on resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const calls: { input: string; attempt: number }[] = [];
    const cases = [tc('a', 'one'), tc('b', 'two'), tc('c', 'three')];
    const first = await runExperiment({
      suite: suiteOf(cases),
      agent: scriptedAgent(calls),
      outDir: join(dir, 'run'),
      filter: ['a', 'c'],
    });
    expect(first.progress.done).toBe(2);
    const second = await runExperiment({ suite: suiteOf(cases), agent: scriptedAgent(calls), resume: first.runDir });
    expect(second.progress.done).toBe(1);
    expect(calls.map((c) => c.input)).toEqual(['one', 'three', 'two']);
    const exp = JSON.parse(readFileSync(second.experimentPath, 'utf8'));
    expect(exp.results.map((r: { test_id: string }) => r.test_id)).toEqual(['a', 'b', 'c']);
    expect(second.metrics.t_pass_rate?.value).toBe(1);
  });

  it('refuses to resume a run of another suite, or a folder with no run, before anything runs (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-run-'));
    const calls: { input: string; attempt: number }[] = [];
    const first = await runExperiment({
      suite: suiteOf([tc('a', 'one')]),
      agent: scriptedAgent(calls),
      outDir: join(dir, 'run'),
    });
    const journalBefore = readFileSync(first.journalPath, 'utf8');
    const other = suiteOf([tc('a', 'one'), tc('b', 'two')], { name: 'another suite' });
    const resumed = runExperiment({ suite: other, agent: scriptedAgent(calls), resume: first.runDir });
    await expect(resumed).rejects.toMatchObject({
      name: 'RunSetupError',
      code: 'AEH_ERR_RUN_SETUP',
      message: expect.stringMatching(/run of suite 'unit suite', not 'another suite'/),
    });
    expect(readFileSync(first.journalPath, 'utf8')).toBe(journalBefore);
    const missing = runExperiment({ suite: other, agent: scriptedAgent(calls), resume: join(dir, 'nope') });
    await expect(missing).rejects.toMatchObject({ name: 'RunSetupError', message: /no journal\.jsonl/ });
    expect(calls.map((c) => c.input)).toEqual(['one']);
  });
});
