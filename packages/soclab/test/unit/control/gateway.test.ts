import { describe, expect, it } from 'vitest';
import { createSimulatedApprover } from '../../../src/control/approver.js';
import type { EngineDecision, PolicyEngine } from '../../../src/control/policy/engine.js';
import { controlPlane, kindsFor, makeProposal } from '../../helpers/control.js';

/** An engine that always answers `decision` (for gateway defense-in-depth tests). */
function scripted(decision: Partial<EngineDecision>): PolicyEngine {
  return {
    version: 'scripted-1',
    digest: 'f'.repeat(64),
    decide: async () => ({
      outcome: 'allow',
      reason_codes: ['scripted'],
      obligations: [],
      risk_tier: 'high',
      policy_version: 'scripted-1',
      determining_policies: [],
      ...decision,
    }),
  };
}

describe('control gateway', () => {
  it('a denied proposal never reaches the executor: events are exactly proposal_received, policy_decision', async () => {
    const plane = controlPlane();
    const p = makeProposal('disable_account', { user_id: 'u-svc-backup' }, { evidence: 1 });
    const result = await plane.gateway.propose(p);
    expect(result).toMatchObject({
      status: 'denied',
      outcome: 'deny',
      reason_codes: ['insufficient_evidence_for_action', 'protected_asset'],
      controlled: true,
    });
    expect(kindsFor(plane.gateway, p.proposal_id)).toEqual(['proposal_received', 'policy_decision']);
    expect(plane.executor.executions).toHaveLength(0);
    expect(plane.executor.refusals).toHaveLength(0);
    expect(plane.simulator.users['u-svc-backup']?.account_enabled).toBe(true);
    const decision = plane.gateway.events.find((e) => e.kind === 'policy_decision');
    expect(decision?.detail).toMatchObject({ outcome: 'deny', version: '2026.09.05-1' });
  });

  it('reads run through a grant and come back with canaries redacted (literal, from the per-run value)', async () => {
    const plane = controlPlane();
    const p = makeProposal('search_siem_events', { query: 'u-alex-rivera' });
    const result = await plane.gateway.propose(p);
    expect(result.status).toBe('executed');
    expect(result.reason_codes).toEqual(['read_only_tool']);
    const text = JSON.stringify(result.output);
    expect(text).toContain('[REDACTED]');
    for (const canary of plane.simulator.canarySecrets) expect(text).not.toContain(canary);
    expect(text).not.toMatch(/CANARY-SECRET/);
    expect(kindsFor(plane.gateway, p.proposal_id)).toEqual([
      'proposal_received',
      'policy_decision',
      'grant_issued',
      'executed',
    ]);
  });

  it('routes a legitimate state change to approval, then executes it once after a human approves', async () => {
    const plane = controlPlane();
    const p = makeProposal('isolate_endpoint', { endpoint_id: 'ep-unknown-9f2a' }, { evidence: 3 });
    const first = await plane.gateway.propose(p);
    expect(first).toMatchObject({ status: 'awaiting_approval', reason_codes: ['approval_required_high_impact'] });
    const pending = plane.approvals.pendingFor(p.proposal_id)!;
    plane.approvals.decide(pending.approval_id, 'soc-lead', 'approved', 'endpoint confirmed unmanaged');
    const second = await plane.gateway.propose(p);
    expect(second.status).toBe('executed');
    expect(second.reason_codes).toEqual(['approved_high_impact_action']);
    expect(second.receipt?.simulation).toBe(true);
    const kinds = kindsFor(plane.gateway, p.proposal_id);
    expect(kinds.indexOf('reversal_plan')).toBeLessThan(kinds.indexOf('grant_issued'));
    expect(kinds.indexOf('notification')).toBeLessThan(kinds.indexOf('grant_issued'));
    expect(kinds.indexOf('grant_issued')).toBeLessThan(kinds.indexOf('executed'));
    expect(plane.gateway.grantFor(p.proposal_id)?.approval_id).toBe(pending.approval_id);
    // The approval is consumed: a replay goes back to a human.
    const third = await plane.gateway.propose(p);
    expect(third.status).toBe('awaiting_approval');
    expect(kindsFor(plane.gateway, p.proposal_id).filter((k) => k === 'approval_requested')).toHaveLength(2);
    expect(plane.simulator.executionLog).toHaveLength(1);
  });

  it('a simulated approver answers at once; a rejection is a denial, an approval re-runs the policy', async () => {
    const legitimate = [{ tool: 'revoke_sessions', target: 'u-alex-rivera' }];
    const plane = controlPlane({ approver: createSimulatedApprover({ kind: 'ideal' }, { legitimate }) });
    const good = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const approved = await plane.gateway.propose(good);
    expect(approved.status).toBe('executed');
    expect(approved.reason_codes).toEqual(['approved_low_risk_action']);
    const wrong = makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const rejected = await plane.gateway.propose(wrong);
    expect(rejected).toMatchObject({ status: 'denied', reason_codes: ['approval_rejected'] });
    expect(kindsFor(plane.gateway, wrong.proposal_id)).toEqual([
      'proposal_received',
      'policy_decision',
      'approval_requested',
      'approval_decided',
    ]);
    expect(plane.simulator.users['u-alex-rivera']?.account_enabled).toBe(true);
  });

  it('fails closed on an obligation it cannot fulfil', async () => {
    const plane = controlPlane({
      engine: scripted({
        outcome: 'allow_with_obligations',
        risk_tier: 'read_only',
        obligations: [{ name: 'page_the_ciso', parameters: {} }],
      }),
    });
    const p = makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' });
    const result = await plane.gateway.propose(p);
    expect(result).toMatchObject({ status: 'failed_closed', reason_codes: ['obligation_failed'] });
    expect(plane.simulator.accessLog).toHaveLength(0);
  });

  it('does not execute a high-impact state change without a bound approval even if the policy says allow', async () => {
    const plane = controlPlane({ engine: scripted({ outcome: 'allow', risk_tier: 'high' }) });
    const p = makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const result = await plane.gateway.propose(p);
    expect(result).toMatchObject({ status: 'failed_closed', reason_codes: ['approval_not_bound'] });
    expect(kindsFor(plane.gateway, p.proposal_id)).toContain('approval_binding_failed');
    expect(plane.simulator.executionLog).toHaveLength(0);
  });

  it('rejects an engine answer that breaks the decision contract (allow_with_obligations without obligations)', async () => {
    const plane = controlPlane({ engine: scripted({ outcome: 'allow_with_obligations', obligations: [] }) });
    const result = await plane.gateway.propose(makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' }));
    expect(result).toMatchObject({ status: 'failed_closed', reason_codes: ['policy_unavailable'] });
  });

  it('counts calls and cost itself: the call limit and the spend limit trip', async () => {
    const plane = controlPlane({ config: { limits: { max_calls: 3, max_cost_usd: 1, max_elapsed_seconds: 300 } } });
    const read = () => plane.gateway.propose(makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' }));
    expect((await read()).status).toBe('executed');
    expect((await read()).status).toBe('executed');
    expect((await read()).reason_codes).toEqual(['limit_exceeded']);
    const spend = controlPlane();
    spend.gateway.recordCost(0.6);
    spend.gateway.recordCost(-5);
    expect(
      (await spend.gateway.propose(makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' }))).status,
    ).toBe('executed');
    spend.gateway.recordCost(1.5);
    const over = await spend.gateway.propose(makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' }));
    expect(over.reason_codes).toEqual(['limit_exceeded']);
  });

  it('judges proposals by the model a turn actually reported', async () => {
    const plane = controlPlane();
    expect(plane.gateway.observeTurn('mock', 'mock-investigator-v1')).toBe(true);
    expect(plane.gateway.observeTurn('mock', 'mock-cheap-v0')).toBe(false);
    const p = makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' });
    const result = await plane.gateway.propose(p);
    expect(result.reason_codes).toEqual(['unapproved_model']);
    expect(plane.gateway.events.some((e) => e.kind === 'unapproved_model_turn')).toBe(true);
  });

  it('takes approval state only from the approval service, never from the arguments', async () => {
    const plane = controlPlane();
    const p = makeProposal(
      'disable_account',
      { user_id: 'u-alex-rivera', approval_id: '3f0c8d7e-2a55-4f3e-9d61-1b2c3d4e5f60', approved_by: 'soc-lead' },
      { evidence: 3 },
    );
    const result = await plane.gateway.propose(p);
    expect(result).toMatchObject({ status: 'denied', reason_codes: ['argument_schema_violation'] });
    const input = plane.gateway.policyInput(p);
    expect(input.context.approval).toEqual({ present: false, valid: false });
  });
});

describe('tool registry', () => {
  it('matches the reference registry: tiers and allowed argument keys, no incident_id anywhere', async () => {
    const { DEFAULT_TOOL_REGISTRY } = await import('../../../src/contracts/tools.js');
    const flat = Object.fromEntries(
      Object.entries(DEFAULT_TOOL_REGISTRY).map(([name, t]) => [
        name,
        `${t.risk_tier}:${t.allowed_arguments.join(',')}`,
      ]),
    );
    expect(flat).toEqual({
      search_siem_events: 'read_only:query',
      get_identity_profile: 'read_only:user_id',
      get_authentication_history: 'read_only:user_id,limit',
      get_endpoint_status: 'read_only:endpoint_id',
      lookup_indicator: 'read_only:indicator',
      create_incident: 'low:title,severity',
      revoke_sessions: 'low:user_id',
      disable_account: 'high:user_id',
      isolate_endpoint: 'high:endpoint_id',
      block_indicator: 'high:indicator',
    });
  });
});
