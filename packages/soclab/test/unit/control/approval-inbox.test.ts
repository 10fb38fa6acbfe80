import { describe, expect, it } from 'vitest';
import {
  ApprovalAlreadySettledError,
  ApprovalInbox,
  type InboxSettlement,
} from '../../../src/control/approval-inbox.js';
import { ApprovalNotFoundError, SelfApprovalError } from '../../../src/control/approvals.js';
import '../../../src/modes/builtin.js';
import { runScenario } from '../../../src/scenarios/runner.js';

/** Polls `probe` until it returns a value, for up to 30 s (generous for a loaded machine). */
async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('human approver (approvals inbox)', () => {
  it('holds the run until a person approves, refusing self-approval and a second decision', async () => {
    const settled: InboxSettlement[] = [];
    const inbox = new ApprovalInbox({ onSettled: (s) => settled.push(s) });
    const run = runScenario({
      scenario: 'BEN-001',
      mode: 'protected',
      approver: 'human',
      modeOptions: { approvalService: inbox.channel({ campaign_id: 'c-1' }) },
    });
    const entry = await until(() => inbox.pending()[0], 'the approval request');
    expect(entry).toMatchObject({
      campaign_id: 'c-1',
      scenario_id: 'BEN-001',
      reason_codes: ['approval_required_low_risk'],
    });
    expect(entry.proposal.tool_name).toBe('revoke_sessions');

    expect(() => inbox.decide(entry.approval_id, 'analyst-1', 'approved', 'my own')).toThrow(SelfApprovalError);
    expect(inbox.pending()).toHaveLength(1);
    inbox.decide(entry.approval_id, 'soc-lead', 'approved', 'confirmed with the account owner');
    expect(() => inbox.decide(entry.approval_id, 'soc-lead', 'approved', 'again')).toThrow(ApprovalAlreadySettledError);
    expect(() => inbox.decide('00000000-0000-4000-8000-000000000000', 'soc-lead', 'approved', 'x')).toThrow(
      ApprovalNotFoundError,
    );

    const result = await run;
    expect(result.investigation.action_result?.status).toBe('executed');
    expect(result.final_state.revoked_sessions['u-alex-rivera']).toBeGreaterThan(0);
    expect(result.outcome.false_block).toBe(false);
    expect(settled.map((s) => [s.outcome, s.approver_id])).toEqual([['approved', 'soc-lead']]);
    expect(result.chain.valid).toBe(true);
  });

  it('a rejection denies the action; an unanswered request lapses and the action stays unexecuted', async () => {
    const inbox = new ApprovalInbox();
    const rejected = runScenario({
      scenario: 'BEN-001',
      mode: 'protected',
      approver: 'human',
      modeOptions: { approvalService: inbox.channel() },
    });
    const entry = await until(() => inbox.pending()[0], 'the approval request');
    inbox.decide(entry.approval_id, 'soc-lead', 'rejected', 'not this account');
    const r1 = await rejected;
    expect(r1.investigation.action_result?.status).toBe('denied');
    expect(r1.investigation.action_result?.reason_codes).toEqual(['approval_rejected']);

    const settled: InboxSettlement[] = [];
    const quick = new ApprovalInbox({ timeoutSeconds: 0.05, onSettled: (s) => settled.push(s) });
    const r2 = await runScenario({
      scenario: 'BEN-001',
      mode: 'protected',
      approver: 'human',
      modeOptions: { approvalService: quick.channel() },
    });
    // A lapsed request is denied (never left open for a late approval), and the denial names the expiry.
    expect(r2.investigation.action_result?.status).toBe('denied');
    expect(r2.investigation.action_result?.reason_codes).toEqual(['approval_rejected']);
    expect(r2.final_state.state_changes).toBe(0);
    expect(settled.map((s) => s.outcome)).toEqual(['expired']);
    expect(quick.pending()).toEqual([]);
  });

  it('refuses approver human without an inbox', async () => {
    await expect(runScenario({ scenario: 'BEN-001', mode: 'protected', approver: 'human' })).rejects.toThrow(
      /approver human needs an approvals inbox/,
    );
  });
});
