/**
 * `soclab serve` killed (SIGKILL) or stopped (SIGTERM) while a campaign run waits for a human approval that cannot
 * be resumed (its persisted request has no proposal hash, as rows written before resumable approvals): the run's
 * evidence written so far survives, and the restart closes its chain with one `run.interrupted` event (the chain
 * stays valid and says it was interrupted), the campaign is failed as interrupted and the request is no longer
 * pending. A second restart changes nothing. (Resumable requests: serve-approval-resume.test.ts.)
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { call, type Json, TOKENS, tempDir, until } from '../../helpers/api.js';
import { type ServeProcess, startServe, stopProcess } from '../../helpers/serve.js';

const TOKEN_ENV = `ops:operator:${TOKENS.operator},viewer:viewer:${TOKENS.viewer}`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function serve(dir: string): Promise<ServeProcess> {
  return startServe(['--data-dir', dir], { SOCLAB_API_TOKENS: TOKEN_ENV, SOCLAB_DATABASE_URL: '' });
}

const stop = stopProcess;

async function runsOf(base: string): Promise<Json[]> {
  return (await call(base, 'GET', '/api/v1/runs?limit=500', { as: 'viewer' })).body;
}
async function eventsOf(base: string, runId: string): Promise<Json[]> {
  return (await call(base, 'GET', `/api/v1/runs/${runId}/events`, { as: 'viewer' })).body;
}

describe.each(['SIGKILL', 'SIGTERM'] as const)('soclab serve stopped by %s mid-campaign', (signal) => {
  it('keeps the waiting run’s evidence and closes its chain as interrupted on restart', async () => {
    const dir = tempDir('soclab-crash-');
    dirs.push(dir);
    let s = await serve(dir);
    let waitingRun: string;
    let before: Json[];
    let campaignId: string;
    let approval: Json;
    let checkpoint: Json[];
    let recoveredLength = 0;
    try {
      const created = await call(s.base, 'POST', '/api/v1/campaigns', {
        as: 'operator',
        body: { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human', approval_timeout_seconds: 600 },
      });
      expect(created.status).toBe(202);
      campaignId = created.body.campaign_id;
      const pending = await until(async () => {
        const r = await call(s.base, 'GET', '/api/v1/approvals', { as: 'viewer' });
        return r.body.length > 0 ? r.body[0] : undefined;
      }, 'the pending approval');
      waitingRun = pending.run_id;
      approval = pending;
      // While the run waits, what it did so far is already on its chain (not only run.started). The turn that
      // asked may still be on its way to the database when the request shows: wait until the chain stays put.
      let seen = -1;
      before = await until(async () => {
        const events = await eventsOf(s.base, waitingRun);
        const steady = events.length === seen;
        seen = events.length;
        if (!steady) await new Promise((r) => setTimeout(r, 300));
        return steady ? events : undefined;
      }, 'the waiting run to stop writing');
      expect(before[0].event_type).toBe('run.started');
      expect(before.filter((e) => e.event_type === 'model.turn').length).toBeGreaterThan(0);
      const open = (await runsOf(s.base)).find((r) => r.run_id === waitingRun);
      expect(open).toMatchObject({ ending: 'open', valid: true, length: before.length });
      // The rest of what it did (reads, proposals, the policy decision and the approval request) is in its
      // checkpoint beside the chain, saved within a moment of happening.
      checkpoint = await until(async () => {
        const db = new Database(join(dir, 'soclab.sqlite'), { readonly: true, fileMustExist: true });
        try {
          const row = db.prepare('select events from run_checkpoints where run_id = ?').get(waitingRun) as
            | { events: string }
            | undefined;
          const events: Json[] = row ? JSON.parse(row.events) : [];
          return events.some((e) => e.event_type === 'gateway.approval_requested') ? events : undefined;
        } finally {
          db.close();
        }
      }, 'the checkpoint with the approval request');
    } finally {
      await stop(s.proc, signal);
    }
    // A request persisted without the hash of its proposal cannot be checked on resume, so it is not resumed.
    const db = new Database(join(dir, 'soclab.sqlite'));
    try {
      db.prepare('update api_approvals set proposal_hash = null').run();
    } finally {
      db.close();
    }

    s = await serve(dir);
    try {
      const after = await eventsOf(s.base, waitingRun);
      // Exactly the events written before the stop, in place, then the checkpointed rest, then one terminal event.
      // After SIGKILL the rest is the checkpoint seen while waiting; a SIGTERM stop first cancels the wait, and
      // the control plane's record of that cancellation is kept too.
      expect(after.slice(0, before.length).map((e) => e.event_hash)).toEqual(before.map((e) => e.event_hash));
      const recovered = after.slice(before.length, -1);
      const types = (events: Json[]) => events.map((e) => e.event_type as string);
      if (signal === 'SIGKILL') {
        expect(types(recovered)).toEqual(types(checkpoint));
      } else {
        // The cancelled proposal and its control-plane records come on top of what was checkpointed.
        const left = [...types(recovered)];
        for (const t of types(checkpoint)) {
          const i = left.indexOf(t);
          expect(i, `recovered events miss a checkpointed ${t}`).toBeGreaterThanOrEqual(0);
          left.splice(i, 1);
        }
        expect(left.length).toBeLessThanOrEqual(3);
      }
      expect(after.map((e) => e.event_type)).toEqual(
        expect.arrayContaining(['tool.output', 'port.proposal', 'gateway.approval_requested']),
      );
      recoveredLength = after.length;
      const last = after[after.length - 1];
      expect(last.event_type).toBe('run.interrupted');
      expect(last.payload).toMatchObject({
        events_kept: before.length,
        events_recovered: recovered.length,
        last_event_type: before[before.length - 1].event_type,
      });
      // What the run was waiting for is on its chain: the exact request left pending.
      expect(last.payload.waiting_for_approval).toEqual([
        {
          approval_id: approval.approval_id,
          proposal_id: approval.proposal_id,
          tool_name: 'revoke_sessions',
          arguments: approval.arguments,
          reason_codes: approval.reason_codes,
          requested_at: approval.requested_at,
        },
      ]);
      const runs = await runsOf(s.base);
      expect(runs.find((r) => r.run_id === waitingRun)).toMatchObject({
        ending: 'interrupted',
        valid: true,
        length: after.length,
        first_invalid_sequence: null,
      });
      expect(runs.filter((r) => r.ending === 'open')).toEqual([]);
      const campaign = await call(s.base, 'GET', `/api/v1/campaigns/${campaignId}`, { as: 'viewer' });
      expect(campaign.body.status).toBe('failed');
      expect(campaign.body.error).toMatch(/^interrupted/);
      expect((await call(s.base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body).toEqual([]);
      const history = await call(s.base, 'GET', '/api/v1/approvals/history', { as: 'viewer' });
      expect(history.body).toHaveLength(1);
      expect(history.body[0]).toMatchObject({ run_id: waitingRun, decision: null });
      expect(['interrupted', 'cancelled']).toContain(history.body[0].outcome);
    } finally {
      await stop(s.proc, 'SIGTERM');
    }

    // Closing is done once: a further restart leaves every chain as it was.
    s = await serve(dir);
    try {
      expect(await eventsOf(s.base, waitingRun)).toHaveLength(recoveredLength);
    } finally {
      await stop(s.proc, 'SIGTERM');
    }
  }, 180_000);
});
