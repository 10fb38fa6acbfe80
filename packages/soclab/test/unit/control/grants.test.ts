import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ActionProposal } from '../../../src/contracts/proposals.js';
import { ExecutionRefusedError, Executor } from '../../../src/control/executor.js';
import { GrantSigner, GrantVerificationError, keyFromEnvironment, proposalHash } from '../../../src/control/grants.js';
import { createSimulator } from '../../../src/simulator/state.js';
import { INCIDENT, makeProposal } from '../../helpers/control.js';

function setup(now: () => Date = () => new Date()) {
  const runId = randomUUID();
  const simulator = createSimulator({ enforceScope: true, runId });
  const signer = new GrantSigner({ now });
  const executor = new Executor({ simulator, verifier: signer.verifier(), runId, incidentId: INCIDENT });
  return { runId, simulator, signer, executor };
}

function refusalOf(fn: () => unknown): ExecutionRefusedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExecutionRefusedError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('signed single-use grants', () => {
  it('a valid grant executes exactly once; the replay is refused as already used', () => {
    const { runId, simulator, signer, executor } = setup();
    const proposal = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const grant = signer.issue(proposal, { runId, policyVersion: 'v1' });
    const result = executor.execute(proposal, grant);
    expect(result.kind).toBe('write');
    expect(simulator.revocations('u-alex-rivera')).toBe(1);
    const replay = refusalOf(() => executor.execute(proposal, grant));
    expect(replay.code).toBe('grant_replayed');
    expect(replay.message).toBe('grant already used');
    expect(simulator.revocations('u-alex-rivera')).toBe(1);
    expect(executor.receipts).toHaveLength(1);
    expect(executor.receipts[0]?.grant_id).toBe(grant.grant_id);
    expect(executor.receipts[0]?.receipt?.simulation).toBe(true);
  });

  it('refuses a proposal whose arguments changed after the grant was issued', () => {
    const { runId, simulator, signer, executor } = setup();
    const proposal = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const grant = signer.issue(proposal, { runId, policyVersion: 'v1' });
    const mutated = ActionProposal.parse({ ...proposal, arguments: { user_id: 'u-svc-backup' } });
    const refusal = refusalOf(() => executor.execute(mutated, grant));
    expect(refusal.code).toBe('proposal_changed');
    expect(refusal.message).toBe('proposal changed after the grant was issued');
    expect(simulator.executionLog).toHaveLength(0);
    // The refusal did not burn the genuine grant for the genuine proposal.
    expect(executor.execute(proposal, grant).kind).toBe('write');
  });

  it('refuses a grant signed with another key (forged), and one whose fields were edited', () => {
    const { runId, simulator, signer, executor } = setup();
    const proposal = makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { evidence: 3 });
    const forged = new GrantSigner().issue(proposal, { runId, policyVersion: 'v1' });
    const refusal = refusalOf(() => executor.execute(proposal, forged));
    expect(refusal.code).toBe('signature_invalid');
    expect(refusal.message).toBe('grant signature invalid');
    const genuine = signer.issue(makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 }), {
      runId,
      policyVersion: 'v1',
    });
    // Re-pointing a genuine grant at another tool breaks the signature.
    const edited = { ...genuine, tool_name: 'disable_account', proposal_id: proposal.proposal_id };
    expect(refusalOf(() => executor.execute(proposal, edited)).code).toBe('signature_invalid');
    expect(simulator.users['u-alex-rivera']?.account_enabled).toBe(true);
  });

  it('refuses an expired grant', () => {
    let clock = new Date('2026-09-05T12:00:00Z');
    const { runId, simulator, signer, executor } = setup(() => clock);
    const proposal = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const grant = signer.issue(proposal, { runId, policyVersion: 'v1' });
    expect(Date.parse(grant.expires_at) - Date.parse(grant.issued_at)).toBe(60_000);
    clock = new Date('2026-09-05T12:01:00Z');
    const refusal = refusalOf(() => executor.execute(proposal, grant));
    expect(refusal.code).toBe('grant_expired');
    expect(simulator.executionLog).toHaveLength(0);
  });

  it('refuses a missing grant, a grant for another proposal, another run or a malformed grant, each by its reason', () => {
    const { runId, signer, executor } = setup();
    const proposal = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const other = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    expect(refusalOf(() => executor.execute(proposal, null)).code).toBe('grant_missing');
    expect(refusalOf(() => executor.execute(proposal, signer.issue(other, { runId, policyVersion: 'v' }))).code).toBe(
      'wrong_proposal',
    );
    const foreignRun = signer.issue(proposal, { runId: randomUUID(), policyVersion: 'v' });
    const wrongRun = refusalOf(() => executor.execute(proposal, foreignRun));
    expect(wrongRun.code).toBe('scope_mismatch');
    expect(refusalOf(() => executor.execute(proposal, { grant_id: 'x' } as never)).code).toBe('grant_malformed');
    expect(executor.refusals.map((r) => r.code)).toEqual([
      'grant_missing',
      'wrong_proposal',
      'scope_mismatch',
      'grant_malformed',
    ]);
  });

  it('forces the incident from the grant, so a smuggled incident_id argument cannot widen scope', () => {
    const { runId, simulator, signer, executor } = setup();
    const proposal = makeProposal('get_identity_profile', { user_id: 'u-priya-nair', incident_id: 'INC-2002' });
    executor.execute(proposal, signer.issue(proposal, { runId, policyVersion: 'v' }));
    expect(simulator.accessLog.map((a) => a.incident_id)).toEqual([INCIDENT]);
  });

  it('burns the grant even when the tool fails', () => {
    const { runId, signer, executor } = setup();
    const proposal = makeProposal('isolate_endpoint', { endpoint_id: 'ep-does-not-exist' }, { evidence: 3 });
    const grant = signer.issue(proposal, { runId, policyVersion: 'v' });
    expect(refusalOf(() => executor.execute(proposal, grant)).code).toBe('tool_error');
    expect(refusalOf(() => executor.execute(proposal, grant)).code).toBe('grant_replayed');
  });

  it('binds the proposal hash to id, incident, tool, canonical arguments, agent and user only', () => {
    const p = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera', b: 1, a: 2 }, { evidence: 2 });
    const reordered = ActionProposal.parse({
      ...p,
      arguments: { a: 2, user_id: 'u-alex-rivera', b: 1 },
      rationale: 'x',
    });
    expect(proposalHash(reordered)).toBe(proposalHash(p));
    expect(proposalHash(ActionProposal.parse({ ...p, delegated_user_id: 'analyst-2' }))).not.toBe(proposalHash(p));
  });

  it('takes the key from SOCLAB_GRANT_SIGNING_KEY (blank = unset), refuses short keys and never shows the key', () => {
    expect(keyFromEnvironment({ SOCLAB_GRANT_SIGNING_KEY: '   ' })).toBeUndefined();
    const key = 'k'.repeat(40);
    const a = new GrantSigner({ env: { SOCLAB_GRANT_SIGNING_KEY: key } });
    const b = new GrantSigner({ env: { SOCLAB_GRANT_SIGNING_KEY: ` ${key} ` } });
    const proposal = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 2 });
    const grant = a.issue(proposal, { runId: 'r', policyVersion: 'v' });
    expect(b.verify(grant, proposal).grant_id).toBe(grant.grant_id);
    const random1 = new GrantSigner({ env: {} });
    expect(() => random1.verify(grant, proposal)).toThrow(GrantVerificationError);
    expect(() => new GrantSigner({ key: 'short' })).toThrow('grant signing key must be at least 32 bytes');
    expect(JSON.stringify(a)).not.toContain(key);
    expect(JSON.stringify(grant)).not.toContain(key);
  });
});
