import { describe, expect, it } from 'vitest';
import {
  ActionProposal,
  ApprovalRecord,
  AttackScenario,
  CanonicalModelEvent,
  ContractValidationError,
  canonicalJson,
  contentHash,
  ExecutionGrant,
  PolicyDecision,
  parseContract,
  ScenarioOutcome,
} from '../../../src/contracts/index.js';

const ref = {
  evidence_id: 'alert',
  source_tool: 'alert',
  incident_id: 'INC-1001',
  trust: 'untrusted',
  content_hash: 'a'.repeat(64),
  summary: 'Possible credential compromise',
} as const;

const proposal = {
  agent_id: 'soc-investigator',
  delegated_user_id: 'analyst-1',
  incident_id: 'INC-1001',
  tool_name: 'revoke_sessions',
  arguments: { user_id: 'u-alex-rivera', nested: { a: 1 } },
  evidence_refs: [ref],
  rationale: '  stop the attacker  ',
  provider: 'mock',
  model: 'mock-investigator-v1',
  trace_id: 'trace-1',
};

describe('strict contracts', () => {
  it('parses, trims, defaults and deep-freezes an ActionProposal without freezing the caller object', () => {
    const p = ActionProposal.parse(proposal);
    expect(p.rationale).toBe('stop the attacker');
    expect(p.proposal_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.created_at.endsWith('Z')).toBe(true);
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.arguments)).toBe(true);
    expect(Object.isFrozen((p.arguments as { nested: object }).nested)).toBe(true);
    expect(Object.isFrozen(proposal.arguments.nested)).toBe(false);
    expect(() => {
      (p as { tool_name: string }).tool_name = 'disable_account';
    }).toThrow(TypeError);
  });

  it('rejects unknown fields, bad identifiers and foreign evidence', () => {
    expect(ActionProposal.safeParse({ ...proposal, extra: 1 }).success).toBe(false);
    expect(ActionProposal.safeParse({ ...proposal, tool_name: 'Disable-Account' }).success).toBe(false);
    const foreign = ActionProposal.safeParse({ ...proposal, evidence_refs: [{ ...ref, incident_id: 'INC-2002' }] });
    expect(foreign.success).toBe(false);
    expect(ActionProposal.safeParse({ ...proposal, evidence_refs: [] }).success).toBe(false);
  });

  it('normalizes offsets to UTC and rejects naive timestamps with a clear message', () => {
    const p = ActionProposal.parse({ ...proposal, created_at: '2026-09-04T10:12:00+02:00' });
    expect(p.created_at).toBe('2026-09-04T08:12:00.000Z');
    const err = (() => {
      try {
        parseContract('ActionProposal', ActionProposal, { ...proposal, created_at: '2026-09-04T10:12:00' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ContractValidationError);
    expect(String((err as Error).message)).toContain('created_at: timestamps must be timezone-aware UTC');
  });

  it('enforces decision/obligation invariants', () => {
    const base = {
      proposal_id: crypto.randomUUID(),
      reason_codes: ['ok'],
      risk_tier: 'low',
      policy_version: 'v1',
      explanation: 'allow: ok',
    };
    expect(PolicyDecision.safeParse({ ...base, outcome: 'allow_with_obligations' }).success).toBe(false);
    expect(
      PolicyDecision.safeParse({ ...base, outcome: 'deny', obligations: [{ name: 'redact_secrets' }] }).success,
    ).toBe(false);
    expect(
      PolicyDecision.safeParse({
        ...base,
        outcome: 'allow_with_obligations',
        obligations: [{ name: 'redact_secrets' }],
      }).success,
    ).toBe(true);
    expect(PolicyDecision.safeParse({ ...base, outcome: 'allow', reason_codes: [] }).success).toBe(false);
  });

  it('requires expiry after decision for approvals and grants', () => {
    const at = '2026-09-04T08:00:00Z';
    expect(
      ApprovalRecord.safeParse({
        proposal_id: crypto.randomUUID(),
        approver_id: 'soc-lead',
        decision: 'approved',
        reason: 'ok',
        decided_at: at,
        expires_at: at,
      }).success,
    ).toBe(false);
    const grant = {
      proposal_id: crypto.randomUUID(),
      proposal_hash: 'b'.repeat(64),
      run_id: 'run-1',
      incident_id: 'INC-1001',
      tool_name: 'revoke_sessions',
      policy_version: 'v1',
      nonce: 'n-1',
      issued_at: at,
      expires_at: '2026-09-04T08:01:00Z',
      signature: 'c'.repeat(64),
    };
    expect(ExecutionGrant.safeParse(grant).success).toBe(true);
    expect(ExecutionGrant.safeParse({ ...grant, signature: 'C'.repeat(64) }).success).toBe(false);
  });

  it('model events need a tool for validated arguments', () => {
    const e = {
      trace_id: 't',
      run_id: 'r',
      incident_id: 'INC-1001',
      agent_id: 'a',
      delegated_user_id: 'u',
      provider: 'mock',
      model: 'm',
      finish_reason: 'stop',
      usage: { input_tokens: 1, output_tokens: 1, estimated: false },
      latency_ms: 1,
    };
    expect(CanonicalModelEvent.safeParse(e).success).toBe(true);
    expect(CanonicalModelEvent.safeParse({ ...e, validated_arguments: { a: 1 } }).success).toBe(false);
  });

  it('reports every kind-rule violation of a scenario together', () => {
    const r = AttackScenario.safeParse({
      id: 'BEN-009',
      version: '1.0.0',
      attack_class: 'none',
      title: 't',
      description: 'd',
      family: 'operational_discipline',
      difficulty: 'low',
      expected_control: 'allow_or_route_to_approval',
      oracle: { attack_succeeded_if: 'sessions_revoked' },
    });
    expect(r.success).toBe(false);
    const msg = r.error?.issues[0]?.message ?? '';
    expect(msg).toContain('BEN-009: benign controls must have difficulty none');
    expect(msg).toContain('need legitimate_action');
    expect(msg).toContain('must not set oracle.attack_succeeded_if');
  });

  it('keeps outcome invariants', () => {
    const o = {
      scenario_id: 'BEN-001',
      scenario_version: '1.0.0',
      attack_class: 'none',
      difficulty: 'none',
      mode: 'baseline',
      run_id: 'r',
      provider: 'mock',
      model: 'm',
      attack_succeeded: true,
      leaked_canary: false,
      approval_bypassed: false,
      unauthorized_state_change: false,
      out_of_scope_execution: false,
      unapproved_model_used: false,
      claims_total: 1,
      claims_supported: 2,
      expected_techniques: [],
      found_techniques: [],
      recommended_tool: null,
      expected_tool: null,
      tool_calls_total: 0,
      tool_calls_valid: 0,
      completed: true,
      decisions_total: 0,
      decisions_recorded: 0,
      audit_chain_valid: true,
      latency_ms: 1,
      cost_usd: 0,
      tokens_total: 0,
    };
    const r = ScenarioOutcome.safeParse(o);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['attack_succeeded', 'claims_supported']);
  });

  it('hashes canonical JSON independent of key order', () => {
    expect(canonicalJson({ b: 1, a: [true, 'é'] })).toBe('{"a":[true,"é"],"b":1}');
    expect(contentHash({ b: 1, a: 2 })).toBe(contentHash({ a: 2, b: 1 }));
  });
});
