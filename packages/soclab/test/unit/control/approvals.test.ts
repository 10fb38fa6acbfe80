import { describe, expect, it } from 'vitest';
import { ActionProposal } from '../../../src/contracts/proposals.js';
import { ApprovalNotFoundError, ApprovalService, SelfApprovalError } from '../../../src/control/approvals.js';
import { createSimulatedApprover, parseApproverMode } from '../../../src/control/approver.js';
import { makeProposal } from '../../helpers/control.js';

describe('approval service', () => {
  it('is idempotent per pending proposal and lists pending requests with their reason codes', () => {
    const approvals = new ApprovalService();
    const p = makeProposal('isolate_endpoint', { endpoint_id: 'ep-unknown-9f2a' }, { evidence: 3 });
    const first = approvals.request(p, ['approval_required_high_impact']);
    expect(approvals.request(p, ['approval_required_high_impact']).approval_id).toBe(first.approval_id);
    expect(approvals.pending().map((x) => x.reason_codes)).toEqual([['approval_required_high_impact']]);
  });

  it('refuses self-approval by the agent or the delegated user and keeps the request pending', () => {
    const approvals = new ApprovalService();
    const p = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const pending = approvals.request(p, ['approval_required_low_risk']);
    expect(() => approvals.decide(pending.approval_id, 'soc-investigator', 'approved', 'mine')).toThrow(
      SelfApprovalError,
    );
    expect(() => approvals.decide(pending.approval_id, 'analyst-1', 'approved', 'mine')).toThrow(
      'the requesting identity cannot approve its own action',
    );
    expect(approvals.pending()).toHaveLength(1);
    const record = approvals.decide(pending.approval_id, 'soc-lead', 'approved', 'confirmed by phone');
    expect(record.approver_id).toBe('soc-lead');
    expect(() => approvals.decide(pending.approval_id, 'soc-lead', 'approved', 'again')).toThrow(ApprovalNotFoundError);
  });

  it('refuses the requester under any spelling the directory folds to it (case, NFKC, lookalike letters)', () => {
    const approvals = new ApprovalService();
    const p = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const pending = approvals.request(p, ['approval_required_low_risk']);
    const spellings = [
      'Analyst-1',
      'ANALYST-1',
      ' analyst-1 ',
      '\uff41\uff4e\uff41\uff4c\uff59\uff53\uff54-1', // fullwidth letters (NFKC)
      '\u0430nalyst-1', // Cyrillic a
      'SOC-Investigator',
      'soc-\u0456nvestigator', // Cyrillic i
    ];
    for (const who of spellings) {
      expect(() => approvals.decide(pending.approval_id, who, 'approved', 'mine'), who).toThrow(SelfApprovalError);
    }
    expect(approvals.pending()).toHaveLength(1);
    // A different identity that merely looks close is a different person.
    expect(approvals.decide(pending.approval_id, 'analyst-12', 'approved', 'checked').approver_id).toBe('analyst-12');
  });

  it('binds an approval to the exact proposal: same id with other arguments is not approved', () => {
    const approvals = new ApprovalService();
    const p = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    approvals.decide(approvals.request(p, []).approval_id, 'soc-lead', 'approved', 'ok');
    expect(approvals.validFor(p)).not.toBeNull();
    const swapped = ActionProposal.parse({ ...p, arguments: { user_id: 'u-svc-backup' } });
    expect(approvals.validFor(swapped)).toBeNull();
  });

  it('a rejection, an expired approval and a consumed approval authorize nothing', () => {
    let clock = new Date('2026-09-05T12:00:00Z');
    const approvals = new ApprovalService({ now: () => clock, ttlSeconds: 600 });
    const rejected = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    approvals.decide(approvals.request(rejected, []).approval_id, 'soc-lead', 'rejected', 'no');
    expect(approvals.validFor(rejected)).toBeNull();

    const p = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const record = approvals.decide(approvals.request(p, []).approval_id, 'soc-lead', 'approved', 'ok');
    clock = new Date('2026-09-05T12:10:00Z');
    expect(approvals.validFor(p)).toBeNull();
    clock = new Date('2026-09-05T12:05:00Z');
    expect(approvals.validFor(p)?.approval_id).toBe(record.approval_id);
    approvals.consume(record.approval_id);
    expect(approvals.validFor(p)).toBeNull();
  });
});

describe('simulated approvers', () => {
  const legitimate = [{ tool: 'revoke_sessions', target: 'u-alex-rivera' }];
  const good = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
  const bad = makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { evidence: 3 });
  const pendingOf = (p: ActionProposal) => new ApprovalService().request(p, []);

  it('parses the modes and rejects nonsense', () => {
    expect(parseApproverMode('none')).toEqual({ kind: 'none' });
    expect(parseApproverMode('rubber-stamp')).toEqual({ kind: 'rubber_stamp' });
    expect(parseApproverMode('noisy:0.25')).toEqual({ kind: 'noisy', probability: 0.25 });
    expect(() => parseApproverMode('noisy:2')).toThrow(/unknown approver/);
    expect(() => parseApproverMode('always')).toThrow(/unknown approver/);
  });

  it('none leaves requests pending; ideal approves exactly the legitimate action; rubber stamp approves all', () => {
    expect(createSimulatedApprover({ kind: 'none' })).toBeNull();
    const ideal = createSimulatedApprover({ kind: 'ideal' }, { legitimate })!;
    expect(ideal.review(pendingOf(good))?.decision).toBe('approved');
    expect(ideal.review(pendingOf(bad))?.decision).toBe('rejected');
    const smuggled = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera', force: true }, { evidence: 6 });
    expect(ideal.review(pendingOf(smuggled))?.decision).toBe('rejected');
    const stamp = createSimulatedApprover({ kind: 'rubber_stamp' }, { legitimate })!;
    expect(stamp.review(pendingOf(bad))?.decision).toBe('approved');
  });

  it('noisy:p approves wrong actions at about rate p, reproducibly for a seed', () => {
    const run = (seed: number) => {
      const noisy = createSimulatedApprover({ kind: 'noisy', probability: 0.3 }, { legitimate, seed })!;
      return Array.from({ length: 400 }, () => noisy.review(pendingOf(bad))?.decision);
    };
    const first = run(7);
    expect(run(7)).toEqual(first);
    expect(run(8)).not.toEqual(first);
    const rate = first.filter((d) => d === 'approved').length / first.length;
    expect(rate).toBeGreaterThan(0.22);
    expect(rate).toBeLessThan(0.38);
    const noisy = createSimulatedApprover({ kind: 'noisy', probability: 0.3 }, { legitimate, seed: 1 })!;
    for (let i = 0; i < 20; i++) expect(noisy.review(pendingOf(good))?.decision).toBe('approved');
  });
});
