/**
 * A campaign worker thread dies while one of its runs waits for a person (seeded, approver human). The pool runs
 * the campaign again; as the API server does for seeded campaigns (api/campaigns.ts, onRetry), the new attempt
 * continues the dead one (`resume`): same run id, the stored events regenerated rather than appended, the same
 * request waited on (one inbox entry, decided once), and a single valid chain with one decision.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ApprovalInbox, type InboxEntry } from '../../../src/control/approval-inbox.js';
import { openEvidenceStore } from '../../../src/evidence/store.js';
import type { CampaignJob } from '../../../src/service/campaign-job.js';
import { CampaignWorkerPool } from '../../../src/service/worker-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-human-loss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a worker lost during a human wait: the new attempt continues the same chain and waits on the same request', async () => {
  const requested: InboxEntry[] = [];
  const inbox = new ApprovalInbox({ timeoutSeconds: 600, onRequested: (e) => requested.push(e) });
  const pool = new CampaignWorkerPool({ size: 1, env: {} });
  const databaseUrl = join(dir, 'shared.sqlite');
  const job: CampaignJob = {
    campaign_id: 'human-loss',
    options: { mode: 'protected', scenarios: ['BEN-001'], approver: 'human', seed: 5, concurrency: 1 },
    run_dir: join(dir, 'run'),
    database_url: databaseUrl,
    human: true,
    epoch_ms: Date.UTC(2026, 0, 1),
  };
  const retries: string[] = [];
  let killed = false;
  const poll = setInterval(() => {
    const pending = inbox.pending();
    if (!killed && pending.length === 1) {
      killed = true;
      void pool.abandonWorkers();
    } else if (killed && retries.length === 1 && pending.length === 1) {
      // The new attempt has asked again (the same request): the person decides once.
      clearInterval(poll);
      inbox.decide(pending[0]!.approval_id, 'soc-lead', 'approved', 'checked');
    }
  }, 200);
  try {
    const run = await pool.run(job, {
      approvalService: inbox.channel({ campaign_id: job.campaign_id }),
      onRetry: ({ reason }) => {
        retries.push(reason);
        job.resume = true;
      },
    });
    expect(retries).toHaveLength(1);
    // One request, asked by both attempts with the same id, decided once.
    expect(new Set(requested.map((e) => e.approval_id)).size).toBe(1);
    expect(inbox.outcomeOf(requested[0]!.approval_id)).toBe('approved');
    expect(run.records).toHaveLength(1);
    const record = run.records[0]!;
    expect(record.evidence.run_id).toBe(requested[0]!.run_id);
    expect(record.evidence.chain.valid).toBe(true);
    const store = await openEvidenceStore(databaseUrl);
    try {
      const events = await store.events(record.evidence.run_id);
      expect(events.filter((e) => e.event_type === 'run.started')).toHaveLength(1);
      expect(events.filter((e) => e.event_type === 'gateway.approval_decided')).toHaveLength(1);
      expect(events.at(-1)!.event_type).toBe('run.finished');
      expect((await store.verify(record.evidence.run_id)).valid).toBe(true);
    } finally {
      await store.close();
    }
  } finally {
    clearInterval(poll);
    await pool.close();
  }
}, 180_000);
