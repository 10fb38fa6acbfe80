/**
 * Approvals that wait for people across a full restart of `soclab serve` (issue 20 item 2): a campaign run waiting
 * for a human decision is persisted at that point; the server is killed (SIGKILL) or stopped (SIGTERM) and started
 * again on the same SQLite data folder; the inbox still lists the request; the decision taken after the restart
 * resumes the campaign, which completes with chains that `soclab verify-chain` accepts, the decision once in the
 * evidence, and the scorecard of the same seeded campaign approved without a restart. Degenerate and hostile cases
 * first: a deadline that passed while the server was down, a rejection, an edited persisted proposal, unknown ids
 * and self-approval after the restart.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { call, eventsOf, finished, type Json, TOKENS, tempDir, until } from '../../helpers/api.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { failWithoutPostgresUnderCi, ownDatabase, PG_URL } from '../../helpers/postgres.js';
import { type ServeProcess, SOCLAB_CLI, startServe, stopProcess } from '../../helpers/serve.js';

const TOKEN_ENV = [
  `ops:operator:${TOKENS.operator}`,
  `viewer:viewer:${TOKENS.viewer}`,
  `soc-lead:approver:${TOKENS.approver}`,
  // The orchestrator's delegated user: an approver in general, never of its own agent's actions.
  `analyst-1:approver:${TOKENS.delegate}`,
].join(',');
// Seeded campaigns read their clock from here, so two servers give the same chains and scorecards.
const EPOCH = '1767225600';
const SCENARIO = 'BEN-001';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Served = ServeProcess;

function serve(dir: string, args: string[] = [], databaseUrl = ''): Promise<Served> {
  return startServe(['--data-dir', dir, ...args], {
    SOCLAB_API_TOKENS: TOKEN_ENV,
    SOCLAB_DATABASE_URL: databaseUrl,
    SOURCE_DATE_EPOCH: EPOCH,
  });
}

const stop = stopProcess;

const pendingOf = async (base: string): Promise<Json[]> =>
  (await call(base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body;

/** Start a human-approved campaign and wait until its request is in the inbox. */
async function startWaiting(base: string, extra: Record<string, unknown> = {}): Promise<{ id: string; pending: Json }> {
  const created = await call(base, 'POST', '/api/v1/campaigns', {
    as: 'operator',
    body: { mode: 'protected', scenario_ids: [SCENARIO], approver: 'human', approval_timeout_seconds: 3600, ...extra },
  });
  expect(created.status).toBe(202);
  const id = created.body.campaign_id as string;
  const pending = await until(async () => (await pendingOf(base)).find((p) => p.campaign_id === id), 'the request');
  return { id, pending };
}

/** Wait until the campaign has written the events it will write before it is killed (its chain stops growing). */
async function settledChain(base: string, runId: string): Promise<Json[]> {
  let seen = -1;
  return until(async () => {
    const events = (await call(base, 'GET', `/api/v1/runs/${runId}/events`, { as: 'viewer' })).body as Json[];
    const steady = events.length === seen;
    seen = events.length;
    if (!steady) await new Promise((r) => setTimeout(r, 400));
    return steady ? events : undefined;
  }, 'the waiting run to stop writing');
}

const done = (base: string, id: string): Promise<Json> => finished(base, id, 120_000);

/** `soclab verify-chain --db` on the data folder's store (or a database URL): exit code and output. */
function verifyChain(dir: string, databaseUrl?: string): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [...SOCLAB_CLI, 'verify-chain', '--db', databaseUrl ?? join(dir, 'soclab.sqlite')],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, SOCLAB_DATABASE_URL: '', NO_COLOR: '1' },
    },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const decide = (
  base: string,
  approvalId: string,
  decision: 'approved' | 'rejected',
  as: 'approver' | 'delegate' = 'approver',
) =>
  call(base, 'POST', `/api/v1/approvals/${approvalId}/decision`, {
    as,
    body: { decision, reason: 'checked with the account owner' },
  });

/**
 * The scorecard without the API's own campaign id (it names the campaign, not what was measured) and without the
 * time the server re-verified the chains for this request (the wall clock of the call).
 */
async function scorecardOf(base: string, id: string): Promise<string> {
  const r = await call(base, 'GET', `/api/v1/campaigns/${id}/reports/technical/json`, { as: 'viewer' });
  expect(r.status).toBe(200);
  const card = JSON.parse(r.text.split(id).join('<campaign>'));
  expect(card.chains.verification).toMatchObject({ how: 'reverified' });
  delete card.chains.verification.at;
  return JSON.stringify(card, null, 1);
}

const executedEvents = (events: Json[]) => events.filter((e) => e.event_type === 'gateway.executed');
const decisions = (events: Json[], approvalId: string) =>
  events.filter((e) => e.event_type === 'gateway.approval_decided' && e.payload?.detail?.approval_id === approvalId);

describe('soclab serve: a run waiting for a person survives a restart', () => {
  it('a request whose deadline passes while the server is down is expired, denied in the chain, and the action never runs', async () => {
    const dir = tempDir('soclab-resume-');
    dirs.push(dir);
    let s = await serve(dir);
    let id: string;
    let pending: Json;
    try {
      ({ id, pending } = await startWaiting(s.base, { approval_timeout_seconds: 4 }));
      await settledChain(s.base, pending.run_id);
    } finally {
      await stop(s.proc, 'SIGKILL');
    }
    const left = Date.parse(pending.deadline) - Date.now();
    if (left > 0) await new Promise((r) => setTimeout(r, left + 200));
    s = await serve(dir);
    try {
      const finished = await done(s.base, id);
      expect(finished.status).toBe('completed');
      expect(await pendingOf(s.base)).toEqual([]);
      const history = (await call(s.base, 'GET', `/api/v1/approvals/history?campaign_id=${id}`, { as: 'viewer' }))
        .body as Json[];
      expect(history.map((h) => [h.approval_id, h.outcome])).toEqual([[pending.approval_id, 'expired']]);
      const events = await eventsOf(s.base, pending.run_id);
      expect(decisions(events, pending.approval_id).map((e) => e.payload.detail)).toEqual([
        expect.objectContaining({ approver: 'soclab:approval-expired', decision: 'rejected' }),
      ]);
      expect(executedEvents(events).filter((e) => e.payload.proposal_id === pending.proposal_id)).toEqual([]);
      const late = await decide(s.base, pending.approval_id, 'approved');
      expect(late.status).toBe(409);
    } finally {
      await stop(s.proc, 'SIGTERM');
    }
    const verified = verifyChain(dir);
    expect(verified.status, verified.out).toBe(0);
  }, 240_000);

  it('hostile and refused decisions after a restart: unknown id, self-approval, an edited proposal, a rejection', async () => {
    const dir = tempDir('soclab-resume-');
    dirs.push(dir);
    // Two campaigns wait at once (a waiting campaign holds its running slot).
    const config = join(dir, 'server.yaml');
    writeFileSync(config, 'max_running_campaigns: 2\ncampaign_workers: 2\n');
    let s = await serve(dir, ['--config', config]);
    let tampered: { id: string; pending: Json };
    let rejected: { id: string; pending: Json };
    try {
      tampered = await startWaiting(s.base);
      await settledChain(s.base, tampered.pending.run_id);
      rejected = await startWaiting(s.base);
      await settledChain(s.base, rejected.pending.run_id);
    } finally {
      await stop(s.proc, 'SIGKILL');
    }
    // Someone with access to the database edits what the approver will be shown (another account to revoke).
    const db = new Database(join(dir, 'soclab.sqlite'));
    try {
      const row = db
        .prepare('select proposal from api_approvals where approval_id = ?')
        .get(tampered.pending.approval_id) as { proposal: string };
      const proposal = JSON.parse(row.proposal);
      expect(proposal.arguments.user_id).toBeTypeOf('string');
      proposal.arguments.user_id = 'ceo-1';
      db.prepare('update api_approvals set proposal = ? where approval_id = ?').run(
        JSON.stringify(proposal),
        tampered.pending.approval_id,
      );
    } finally {
      db.close();
    }

    s = await serve(dir, ['--config', config]);
    try {
      const listed = await pendingOf(s.base);
      expect(listed.map((p) => p.approval_id).sort()).toEqual(
        [tampered.pending.approval_id, rejected.pending.approval_id].sort(),
      );
      const unknown = await decide(s.base, '00000000-0000-4000-8000-000000000000', 'approved');
      expect(unknown.status).toBe(404);
      // The agent's delegated user still cannot approve its own action; the request stays pending.
      const self = await decide(s.base, rejected.pending.approval_id, 'approved', 'delegate');
      expect(self.status).toBe(403);
      expect((await pendingOf(s.base)).map((p) => p.approval_id)).toContain(rejected.pending.approval_id);

      expect((await decide(s.base, rejected.pending.approval_id, 'rejected')).status).toBe(200);
      const r = await done(s.base, rejected.id);
      expect(r.status).toBe('completed');
      const rEvents = await eventsOf(s.base, rejected.pending.run_id);
      expect(decisions(rEvents, rejected.pending.approval_id).map((e) => e.payload.detail)).toEqual([
        expect.objectContaining({ approver: 'soc-lead', decision: 'rejected' }),
      ]);
      expect(executedEvents(rEvents).filter((e) => e.payload.proposal_id === rejected.pending.proposal_id)).toEqual([]);
      // Decided once, also across the restart.
      expect((await decide(s.base, rejected.pending.approval_id, 'approved')).status).toBe(409);

      // The edited request is approved as shown, but the resumed run reaches the original proposal: refused.
      expect((await decide(s.base, tampered.pending.approval_id, 'approved')).status).toBe(200);
      const t = await done(s.base, tampered.id);
      expect(t.status).toBe('completed');
      const tEvents = await eventsOf(s.base, tampered.pending.run_id);
      expect(executedEvents(tEvents).filter((e) => e.payload.proposal_id === tampered.pending.proposal_id)).toEqual([]);
      expect(decisions(tEvents, tampered.pending.approval_id).map((e) => e.payload.detail)).toEqual([
        expect.objectContaining({ approver: 'soclab:resume-mismatch', decision: 'rejected' }),
      ]);
      const history = (await call(s.base, 'GET', '/api/v1/approvals/history', { as: 'viewer' })).body as Json[];
      expect(Object.fromEntries(history.map((h) => [h.approval_id, h.outcome]))).toEqual({
        [tampered.pending.approval_id]: 'resume_mismatch',
        [rejected.pending.approval_id]: 'rejected',
      });
      expect(s.stderr()).toContain(`approval ${tampered.pending.approval_id} not applied`);
    } finally {
      await stop(s.proc, 'SIGTERM');
    }
    const verified = verifyChain(dir);
    expect(verified.status, verified.out).toBe(0);
  }, 300_000);

  // The same seeded campaign approved without a restart: what a restarted one must equal.
  let reference: Promise<string> | null = null;
  const referenceScorecard = (): Promise<string> => {
    reference ??= (async () => {
      const dir = tempDir('soclab-resume-ref-');
      dirs.push(dir);
      const s = await serve(dir);
      try {
        const { id, pending } = await startWaiting(s.base, { seed: 20 });
        expect((await decide(s.base, pending.approval_id, 'approved')).status).toBe(200);
        expect((await done(s.base, id)).status).toBe('completed');
        return await scorecardOf(s.base, id);
      } finally {
        await stop(s.proc, 'SIGTERM');
      }
    })();
    return reference;
  };

  // Campaigns on the pool's worker threads (the default), and on the API's own event loop (campaign_workers: 0).
  describe.each([
    ['SIGKILL', 1],
    ['SIGTERM', 1],
    ['SIGTERM', 0],
  ] as const)('stopped by %s (campaign_workers: %d)', (signal, workers) => {
    it('lists the request again, applies the decision once and completes with a verifying chain', async () => {
      const dir = tempDir('soclab-resume-');
      dirs.push(dir);
      const config = join(dir, 'server.yaml');
      writeFileSync(config, `campaign_workers: ${workers}\n`);
      let s = await serve(dir, ['--config', config]);
      let id: string;
      let pending: Json;
      let before: Json[];
      try {
        ({ id, pending } = await startWaiting(s.base, { seed: 20 }));
        before = await settledChain(s.base, pending.run_id);
        expect(before[0].event_type).toBe('run.started');
      } finally {
        await stop(s.proc, signal);
      }

      s = await serve(dir, ['--config', config]);
      try {
        expect(s.stderr()).toContain('waiting for an approval kept');
        const campaign = await call(s.base, 'GET', `/api/v1/campaigns/${id}`, { as: 'viewer' });
        expect(campaign.body).toMatchObject({ status: 'running', progress: { waiting_for_approval: 1 } });
        expect(campaign.body.request.seed).toBe(20);
        const listed = await pendingOf(s.base);
        expect(listed).toEqual([pending]);
        // Nothing was closed or rewritten while the run waited.
        expect((await eventsOf(s.base, pending.run_id)).map((e) => e.event_hash)).toEqual(
          before.map((e) => e.event_hash),
        );

        const decided = await decide(s.base, pending.approval_id, 'approved');
        expect(decided.status).toBe(200);
        expect(decided.body).toMatchObject({ outcome: 'approved', approver_id: 'soc-lead' });
        const finished = await done(s.base, id);
        expect(finished.status, finished.error).toBe('completed');
        expect(finished.summary.chains_valid).toBe(true);

        const after = await eventsOf(s.base, pending.run_id);
        expect(after.slice(0, before.length).map((e) => e.event_hash)).toEqual(before.map((e) => e.event_hash));
        expect(after.at(-1).event_type).toBe('run.finished');
        expect(after.filter((e) => e.event_type === 'run.interrupted')).toEqual([]);
        expect(decisions(after, pending.approval_id).map((e) => e.payload.detail)).toEqual([
          expect.objectContaining({ approver: 'soc-lead', decision: 'approved' }),
        ]);
        expect(executedEvents(after).filter((e) => e.payload.proposal_id === pending.proposal_id)).toHaveLength(1);
        const history = (await call(s.base, 'GET', `/api/v1/approvals/history?campaign_id=${id}`, { as: 'viewer' }))
          .body as Json[];
        expect(history.map((h) => [h.approval_id, h.outcome])).toEqual([[pending.approval_id, 'approved']]);
        expect(await scorecardOf(s.base, id)).toBe(await referenceScorecard());
      } finally {
        await stop(s.proc, 'SIGTERM');
      }
      const verified = verifyChain(dir);
      expect(verified.status, verified.out).toBe(0);
    }, 300_000);
  });
});

failWithoutPostgresUnderCi('approvals across a restart on PostgreSQL');

describe.skipIf(!PG_URL)(
  'soclab serve on PostgreSQL: a run waiting for a person survives a restart (set HARNESS_TEST_PG_URL to run)',
  () => {
    const database = ownDatabase('soclab_resume');

    it('SIGKILL while waiting, restart, approve: the campaign completes with one decision and verifying chains', async () => {
      const url = await database.create();
      const dir = tempDir('soclab-resume-pg-');
      dirs.push(dir);
      let s = await serve(dir, [], url);
      let id: string;
      let pending: Json;
      let before: Json[];
      try {
        const me = await call(s.base, 'GET', '/api/v1/version', { as: 'viewer' });
        expect(me.body.store).toBe('postgres');
        ({ id, pending } = await startWaiting(s.base));
        before = await settledChain(s.base, pending.run_id);
      } finally {
        await stop(s.proc, 'SIGKILL');
      }
      s = await serve(dir, [], url);
      try {
        expect(await pendingOf(s.base)).toEqual([pending]);
        expect((await decide(s.base, pending.approval_id, 'approved')).status).toBe(200);
        const finished = await done(s.base, id);
        expect(finished.status, finished.error).toBe('completed');
        const after = await eventsOf(s.base, pending.run_id);
        expect(after.slice(0, before.length).map((e) => e.event_hash)).toEqual(before.map((e) => e.event_hash));
        expect(decisions(after, pending.approval_id)).toHaveLength(1);
        expect(executedEvents(after).filter((e) => e.payload.proposal_id === pending.proposal_id)).toHaveLength(1);
      } finally {
        await stop(s.proc, 'SIGTERM');
      }
      const verified = verifyChain(dir, url);
      expect(verified.status, verified.out).toBe(0);
    }, 300_000);
  },
);
