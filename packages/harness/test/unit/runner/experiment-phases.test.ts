import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Experiment } from '../../../src/core/experiment.js';
import type { SuiteLike } from '../../../src/core/suite.js';
import { buildHeader, createAgent, describeAgent, RunSetupError } from '../../../src/runner/experiment.js';
import { SecretScrubber } from '../../../src/secrets/scrubber.js';
import { scriptedAgent } from '../../helpers/plugins.js';

function suite(extra: Partial<SuiteLike> = {}): SuiteLike {
  return {
    name: 'checkout',
    version: '2.1',
    baseDir: '/tmp',
    contentHash: 'abc123',
    totalCases: 3,
    agent: { adapter: 'echo', options: {} },
    evaluators: [],
    metrics: [],
    thresholds: {},
    cases: () => [],
    ...extra,
  };
}

const environment = { tool_version: '0.1.0', node_version: 'v20.0.0', platform: 'linux', git_commit: null };
const runner = { concurrency: 4, repeat: 2, timeout: 30 };

describe('buildHeader', () => {
  it('records the suite, agent, run options and start time of a new run (state running, nothing measured yet)', () => {
    const header = buildHeader({
      suite: suite({ path: 'suites/checkout.yaml', headline: 'accuracy' }),
      agent: { adapter: 'echo', options: {} },
      runner,
      id: 'run0001',
      startedAt: new Date('2026-01-02T03:04:05Z'),
      environment,
      filter: ['tag:smoke'],
      metadata: { ci: true },
    });
    expect(header).toMatchObject({
      id: 'run0001',
      name: 'checkout',
      state: 'running',
      started_at: '2026-01-02T03:04:05.000Z',
      finished_at: null,
      metrics: {},
      thresholds: null,
      suite: { name: 'checkout', version: '2.1', content_hash: 'abc123', total_cases: 3, headline: 'accuracy' },
      metadata: { ci: true, run_options: { concurrency: 4, repeat: 2, timeout: 30, filter: ['tag:smoke'] } },
    });
    // A header is an experiment without results: it parses as one once results are added.
    expect(Experiment.safeParse({ ...header, results: [] }).success).toBe(true);
  });

  it('adds quarantine and description only when the suite has them, and the run options win over metadata', () => {
    const bare = buildHeader({
      suite: suite(),
      agent: { adapter: 'echo', options: {} },
      runner,
      id: 'x',
      startedAt: new Date(),
      environment,
      metadata: { run_options: 'spoofed' },
    });
    expect(bare.metadata).not.toHaveProperty('quarantine');
    expect(bare.metadata).not.toHaveProperty('description');
    expect(bare.suite).not.toHaveProperty('headline');
    expect(bare.metadata?.run_options).toEqual({ concurrency: 4, repeat: 2, timeout: 30, filter: [] });
    const full = buildHeader({
      suite: suite({ quarantine: ['flaky-1'], description: 'the checkout flow' }),
      agent: { adapter: 'echo', options: {} },
      runner,
      id: 'x',
      startedAt: new Date(),
      environment,
    });
    expect(full.metadata).toMatchObject({ quarantine: ['flaky-1'], description: 'the checkout flow' });
  });
});

describe('describeAgent', () => {
  it('redacts secret-looking options and known secret values from what the header records', () => {
    const scrubber = new SecretScrubber(['sk-live-0123456789abcdef']);
    const agent = { describe: () => ({ options: { note: 'uses sk-live-0123456789abcdef' } }) };
    const d = describeAgent(
      agent,
      { adapter: 'http', options: { url: 'http://127.0.0.1:1/', api_key: 'plain-key-value' } },
      { adapter: 'http', options: {} },
      scrubber,
    );
    expect(d.adapter).toBe('http');
    expect(JSON.stringify(d)).not.toContain('plain-key-value');
    expect(JSON.stringify(d)).not.toContain('sk-live-0123456789abcdef');
    expect(d.options.url).toBe('http://127.0.0.1:1/');
  });

  it("takes label and version from the suite's agent unless the agent describes its own", () => {
    const own = describeAgent(
      { describe: () => ({ adapter: 'x', label: 'mine', version: '9' }) },
      { adapter: 'echo' },
      { adapter: 'echo', options: {}, label: 'suite', version: '1' },
    );
    expect(own).toMatchObject({ adapter: 'x', label: 'mine', version: '9' });
    const fromSuite = describeAgent(
      {},
      { adapter: 'echo' },
      { adapter: 'echo', options: {}, label: 'suite', version: '1' },
    );
    expect(fromSuite).toMatchObject({ adapter: 'echo', label: 'suite', version: '1' });
  });
});

describe('createAgent', () => {
  const ctx = { baseDir: tmpdir(), env: {} };

  it('fails on an unknown adapter, naming it', async () => {
    const unknown = suite({ agent: { adapter: 'no_such_adapter', options: {} } });
    await expect(createAgent({ suite: unknown }, ctx)).rejects.toThrow(/no_such_adapter/);
  });

  it('reports a suite evaluator that cannot start as a RunSetupError and closes the agent', async () => {
    let closed = false;
    const agent = {
      ...scriptedAgent(),
      close: async () => {
        closed = true;
      },
    };
    const failing = suite({ evaluators: [{ name: 't_unready', options: {}, weight: 1 }] });
    await expect(createAgent({ suite: failing, agent }, ctx)).rejects.toBeInstanceOf(RunSetupError);
    expect(closed).toBe(true);
  });

  it('returns the runner configured from the options', async () => {
    const prepared = await createAgent({ suite: suite(), agent: scriptedAgent(), concurrency: 3, repeat: 2 }, ctx);
    expect({ concurrency: prepared.runner.concurrency, repeat: prepared.runner.repeat }).toEqual({
      concurrency: 3,
      repeat: 2,
    });
    await prepared.close();
  });
});
