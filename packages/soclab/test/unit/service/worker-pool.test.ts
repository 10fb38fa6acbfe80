import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServerConfig, ServerConfigError } from '../../../src/api/config.js';
import { runCampaign } from '../../../src/campaign/run.js';
import { sealInterruptedRuns } from '../../../src/evidence/interrupted.js';
import { openEvidenceStore } from '../../../src/evidence/store.js';
import type { CampaignJob } from '../../../src/service/campaign-job.js';
import { CampaignWorkerError, CampaignWorkerPool } from '../../../src/service/worker-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let jobs = 0;
const job = (options: CampaignJob['options']): CampaignJob => {
  jobs += 1;
  return {
    campaign_id: `pool-test-${jobs}`,
    options: { concurrency: 2, ...options },
    run_dir: join(dir, `run-${jobs}`),
    database_url: join(dir, 'shared.sqlite'),
    human: false,
  };
};

describe('campaign worker pool', () => {
  it('refuses a pool without workers and a server setting that is not a worker count', () => {
    expect(() => new CampaignWorkerPool({ size: 0 })).toThrow(RangeError);
    for (const bad of [-1, 17, 1.5, '4; rm -rf /']) {
      const load = () =>
        loadServerConfig({ env: {}, overrides: { campaign_workers: bad as number, data_dir: join(dir, 'cfg') } });
      expect(load).toThrow(ServerConfigError);
      expect(load).toThrow(/campaign_workers/);
    }
  });

  it('runs a campaign on a worker thread with the same outcome as in process, writing the shared store', async () => {
    const pool = new CampaignWorkerPool({ size: 1, env: {} });
    try {
      const seen: number[] = [];
      const chains = new Set<string>();
      const request = { mode: 'protected' as const, scenarios: ['ATK-001', 'BEN-001'], repeats: 2 };
      const pooled = await pool.run(job(request), {
        onProgress: (p) => seen.push(p.done),
        onRunId: (id) => chains.add(id),
      });
      const local = await runCampaign(
        { ...request, concurrency: 2 },
        { runDir: join(dir, 'local'), evidenceUrl: join(dir, 'local.sqlite'), env: {} },
      );
      const outcomes = (r: typeof pooled) =>
        r.records.map((x) => [x.outcome.scenario_id, x.outcome.attack_succeeded, x.evidence.chain.valid]);
      expect(pooled.records).toHaveLength(4);
      expect(outcomes(pooled)).toEqual(outcomes(local));
      expect(pooled.assessment.composite).toBe(local.assessment.composite);
      expect(pooled.assessment.authority.level).toBe(local.assessment.authority.level);
      expect(seen.at(-1)).toBe(4);
      // Every chain the worker reported is in the shared database, complete and valid.
      const store = await openEvidenceStore(join(dir, 'shared.sqlite'));
      try {
        expect(chains.size).toBe(4);
        for (const id of chains) expect((await store.verify(id)).valid).toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('runs a campaign again from a clean state when its worker dies mid-run; the abandoned chains are closed', async () => {
    const pool = new CampaignWorkerPool({ size: 1, env: {} });
    const store = await openEvidenceStore(join(dir, 'shared.sqlite'));
    try {
      let killed = false;
      const abandoned = new Set<string>();
      const reasons: string[] = [];
      const run = await pool.run(job({ mode: 'protected', scenarios: ['ATK-001', 'ATK-002'], repeats: 3 }), {
        onProgress: () => {
          if (!killed) {
            killed = true;
            void pool.abandonWorkers();
          }
        },
        onRetry: async ({ runIds, reason }) => {
          reasons.push(reason);
          for (const id of runIds) abandoned.add(id);
          // What the API server does: close the dead attempt's open chains as interrupted.
          await sealInterruptedRuns(store, `${reason}; started again`, runIds);
        },
      });
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toMatch(/campaign worker (stopped|failed)/);
      expect(abandoned.size).toBeGreaterThan(0);
      // The result is the second attempt only: every run, none of the abandoned chains, each chain valid.
      expect(run.records).toHaveLength(6);
      const resultChains = run.records.map((r) => r.evidence.run_id);
      expect(resultChains.filter((id) => abandoned.has(id))).toEqual([]);
      for (const r of run.records) expect(r.evidence.chain.valid).toBe(true);
      for (const id of abandoned) {
        const events = await store.events(id);
        // A run announced just before the kill may not have written its first event yet: no chain exists to close.
        if (events.length === 0) continue;
        expect((await store.verify(id)).valid).toBe(true);
        expect(['run.finished', 'run.interrupted']).toContain(events.at(-1)!.event_type);
      }
      // Whether any abandoned run was still open at the kill (so ends interrupted rather than finished) depends on
      // timing; the loop above already requires every chain that exists to be valid and closed.
      expect(pool.load.workers).toBe(1);
    } finally {
      await store.close();
      await pool.close();
    }
  }, 180_000);

  it('fails the campaign when its worker dies and no retry is left', async () => {
    const pool = new CampaignWorkerPool({ size: 1, env: {}, retries: 0 });
    try {
      let killed = false;
      const error = await pool
        .run(job({ mode: 'protected', scenarios: ['ATK-001', 'ATK-002'], repeats: 10 }), {
          onProgress: () => {
            if (!killed) {
              killed = true;
              void pool.abandonWorkers();
            }
          },
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(CampaignWorkerError);
      expect(error).toMatchObject({ aborted: false, workerLost: true });
      const next = await pool.run(job({ mode: 'protected', scenarios: ['BEN-001'], repeats: 1 }));
      expect(next.records[0]!.evidence.chain.valid).toBe(true);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('stops a campaign when its signal aborts (the runs end, the worker stays usable)', async () => {
    const pool = new CampaignWorkerPool({ size: 1, env: {} });
    try {
      const controller = new AbortController();
      const result = await pool
        .run(job({ mode: 'protected', scenarios: ['ATK-001', 'ATK-002'], repeats: 10 }), {
          signal: controller.signal,
          onProgress: () => controller.abort(),
        })
        .then(
          (run) => ({ state: run.info.state, done: run.records.length }),
          (e: CampaignWorkerError) => ({ state: 'rejected', aborted: e.aborted }),
        );
      // An aborted campaign ends as `cancelled` before its 20 runs, or rejects as aborted; never as completed.
      if ('aborted' in result) expect(result.aborted).toBe(true);
      else {
        expect(result.state).toBe('cancelled');
        expect(result.done).toBeLessThan(20);
      }
      expect(pool.load).toMatchObject({ workers: 1, busy: 0 });
    } finally {
      await pool.close();
    }
  }, 120_000);
});
