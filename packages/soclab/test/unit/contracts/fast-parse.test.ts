import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PendingApproval } from '../../../src/contracts/approvals.js';
import { ScenarioOutcome } from '../../../src/contracts/campaign.js';
import { ContractValidationError, parseContract } from '../../../src/contracts/common.js';
import { PolicyDecision } from '../../../src/contracts/decisions.js';
import {
  fastActionProposal,
  fastEvidenceRef,
  fastExecutionGrant,
  fastGatewayEvent,
  fastInvestigationHead,
  fastModelEvent,
  fastPendingApproval,
  fastPolicyDecision,
  fastProposalResult,
  fastScenarioOutcome,
  isParsedProposalResult,
  rememberActionProposal,
  rememberEvidenceRef,
} from '../../../src/contracts/fast-parse.js';
import { GatewayEvent } from '../../../src/contracts/gateway.js';
import { ExecutionGrant } from '../../../src/contracts/grants.js';
import { InvestigationResult } from '../../../src/contracts/investigation.js';
import { CanonicalModelEvent } from '../../../src/contracts/model-turns.js';
import { ActionProposal, EvidenceRef, ProposalResult } from '../../../src/contracts/proposals.js';
import { withReproducibleScope } from '../../../src/contracts/reproducible.js';

/**
 * Each fast builder against its zod schema, as the call sites use them: `fast(input) ?? parse(input)` must give what
 * `parse(input)` gives (the same value, key order, frozen objects and the same defaulted ids and times inside a
 * seeded scope), or the same error message; and the inputs the lab builds must take the fast path.
 */

const inScope = <T>(fn: () => T): T => withReproducibleScope(5, 'fast-parse', Date.UTC(2026, 0, 2), fn);

/** Value, key order, frozen-ness and -0 of everything reachable: what a caller could notice. */
function snapshot(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (value === undefined) return '<undefined>';
    if (Object.is(value, -0)) return '<-0>';
    if (typeof value === 'number' && !Number.isFinite(value)) return `<${value}>`;
    return value;
  }
  return {
    frozen: Object.isFrozen(value),
    array: Array.isArray(value),
    entries: Object.entries(value).map(([k, v]) => [k, snapshot(v)]),
  };
}

function outcome(fn: () => unknown): unknown {
  try {
    return { ok: snapshot(fn()) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Asserts the combined path equals zod's; returns true when the fast path answered. */
function holds(input: unknown, fast: (x: unknown) => unknown, parse: (x: unknown) => unknown): boolean {
  let hit = false;
  const combined = outcome(() =>
    inScope(() => {
      const value = fast(input);
      hit = value !== undefined;
      return value ?? parse(input);
    }),
  );
  expect(combined).toEqual(outcome(() => inScope(() => parse(input))));
  return hit;
}

const padded = (s: fc.Arbitrary<string>) =>
  fc.tuple(fc.constantFrom('', ' ', '\t', '\u00a0'), s, fc.constantFrom('', ' ', '\n')).map(([a, b, c]) => a + b + c);
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  padded(fc.string({ maxLength: 8 })),
  fc.constantFrom('', ' ', 'alert', 'mock', 'x'.repeat(500), 'x'.repeat(501), ` ${'y'.repeat(500)} `),
);
const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const nonEmpty = fc.oneof(
  { weight: 12, arbitrary: fc.oneof(word, fc.constantFrom('inc-1', 'soc-investigator', 'mock-investigator-v1')) },
  { weight: 1, arbitrary: text },
);
const identifier = fc.oneof(
  { weight: 12, arbitrary: word },
  { weight: 1, arbitrary: fc.constantFrom(' kind_a ', 'Bad', 'a-b', '1a', '') },
  { weight: 1, arbitrary: text },
);
const uuid = fc.oneof(
  fc.uuid(),
  fc.constantFrom(
    '00000000-0000-4000-8000-000000000000',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    'ABCDEF01-2345-4678-89AB-CDEF01234567',
    ' 6f1c2a3b-1d2e-4f00-8a1b-0123456789ab',
    '6f1c2a3b-1d2e-9f00-8a1b-0123456789ab',
    'not-a-uuid',
  ),
);
const timestamp = fc.oneof(
  fc
    .date({ min: new Date(Date.UTC(0, 0, 1) - 1900 * 0), max: new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)) })
    .filter((d) => !Number.isNaN(d.getTime()))
    .map((d) => d.toISOString()),
  fc.constantFrom(
    new Date(8.64e15).toISOString(),
    '2026-01-01T00:00:00+01:00',
    '2026-01-01T00:00:00Z',
    '2026-02-30T00:00:00.000Z',
    '2024-02-29T12:00:00.000Z',
    ' 2026-01-01T00:00:00.000Z',
    '2026-01-01T00:00:00.000',
    '2026-13-01T00:00:00.000Z',
    'yesterday',
  ),
);
const json = fc.jsonValue({ maxDepth: 3 });
const odd = fc.constantFrom<unknown>(
  JSON.parse('{"__proto__": {"x": 1}}'),
  Object.assign(Object.create(null), { a: 1 }),
  { constructor: 'x' },
  { [Symbol('s')]: 1, a: 2 },
  Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
  new Date(0),
  new (class Thing {
    a = 1;
  })(),
  { fn: () => 1 },
  { when: new Date(0), list: [1, { b: 2 }] },
  [1, 2],
  'text',
  null,
  { '': 0, '1': 'one', b: -0 },
);
const jsonObject = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 4 }) },
  { weight: 1, arbitrary: odd },
);
const anything = fc.oneof(text, fc.integer(), fc.constant(null), fc.constant(undefined), fc.boolean(), jsonObject);
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: arb }, { weight: 1, arbitrary: anything });
const numberish = fc.oneof(
  { weight: 12, arbitrary: fc.nat(5000) },
  fc.integer({ min: -2, max: 5000 }),
  fc.double(),
  fc.constantFrom(-0, 0, 1.5, -1, 2 ** 53, 2 ** 53 - 1, Number.NaN, Number.POSITIVE_INFINITY),
);
const RUNS = { seed: 22, numRuns: 500 };

/** Drops some keys and adds an unknown one now and then (strict objects reject it). */
const mangled = <T extends Record<string, unknown>>(arb: fc.Arbitrary<T>) =>
  fc.tuple(arb, fc.nat(40), fc.boolean()).map(([value, drop, extra]) => {
    const out: Record<string, unknown> = { ...value };
    const keys = Object.keys(out);
    if (drop < keys.length / 3) delete out[keys[drop] as string];
    if (extra && drop === 39) out.surprise = 1;
    return out;
  });

const hash = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
  fc.constantFrom('A'.repeat(64), ` ${'a'.repeat(64)} `, 'a'.repeat(63)),
);
const refInput = (incident: fc.Arbitrary<unknown>) =>
  fc.record({
    evidence_id: sometimes(nonEmpty),
    source_tool: sometimes(nonEmpty),
    incident_id: incident,
    trust: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom<unknown>('trusted', 'untrusted') },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('Untrusted', undefined) },
    ),
    content_hash: hash,
    summary: fc.oneof({ weight: 3, arbitrary: nonEmpty }, { weight: 1, arbitrary: sometimes(text) }),
  });

describe('fast contract builders equal their zod schemas', () => {
  it('EvidenceRef', () => {
    let hits = 0;
    fc.assert(
      fc.property(mangled(refInput(sometimes(nonEmpty))), (input) => {
        if (holds(input, fastEvidenceRef, (x) => EvidenceRef.parse(x))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(50);
  });

  it('GatewayEvent', () => {
    let hits = 0;
    const input = fc.record({
      proposal_id: sometimes(uuid),
      kind: sometimes(identifier),
      at: sometimes(timestamp),
      detail: sometimes(jsonObject),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastGatewayEvent, (y) => parseContract('GatewayEvent', GatewayEvent, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(50);
  });

  it('ActionProposal, with refs that were parsed (remembered) or not and of this incident or another', () => {
    let hits = 0;
    const refs = fc.array(
      fc.tuple(refInput(fc.constantFrom('inc-1', 'inc-1', 'inc-1', ' inc-1', 'inc-2')), fc.nat(9)).map(([r, n]) => {
        const remember = n > 0;
        const parsed = EvidenceRef.safeParse(r);
        if (!parsed.success) return r;
        return remember ? rememberEvidenceRef(parsed.data) : parsed.data;
      }),
      { minLength: 1, maxLength: 2 },
    );
    const input = fc.record({
      agent_id: sometimes(nonEmpty),
      delegated_user_id: sometimes(nonEmpty),
      incident_id: fc.constantFrom<unknown>('inc-1', 'inc-1', 'inc-1', ' inc-1 ', 'inc-2', '', 3),
      tool_name: sometimes(identifier),
      arguments: sometimes(jsonObject),
      evidence_refs: fc.oneof(
        { weight: 12, arbitrary: refs },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: anything },
      ),
      rationale: fc.oneof(
        { weight: 6, arbitrary: nonEmpty },
        { weight: 1, arbitrary: sometimes(text) },
        { weight: 1, arbitrary: fc.constantFrom('r'.repeat(2000), 'r'.repeat(2001), ` ${'r'.repeat(2000)}`) },
      ),
      provider: sometimes(nonEmpty),
      model: sometimes(nonEmpty),
      trace_id: sometimes(nonEmpty),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastActionProposal, (y) => parseContract('ActionProposal', ActionProposal, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
  });

  it('ProposalResult, remembered so that it is not parsed again', () => {
    let hits = 0;
    const input = fc.record({
      proposal_id: sometimes(uuid),
      tool_name: sometimes(text),
      status: fc.constantFrom<unknown>('executed', 'denied', 'awaiting_approval', 'failed_closed', 'proposed', 'ok'),
      outcome: fc.constantFrom<unknown>(null, 'allow', 'deny', 'require_approval', 'allow_with_obligations', 'maybe'),
      reason_codes: sometimes(fc.array(sometimes(text), { maxLength: 3 })),
      output: fc.oneof(fc.constant(null), jsonObject),
      receipt: fc.oneof(fc.constant(null), jsonObject),
      error: fc.oneof(fc.constant(null), text),
      controlled: fc.constantFrom<unknown>(true, false, 'yes'),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastProposalResult, (y) => parseContract('ProposalResult', ProposalResult, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(30);
    const made = fastProposalResult({
      proposal_id: '00000000-0000-4000-8000-000000000000',
      tool_name: 'get_identity_profile',
      status: 'executed',
      outcome: 'allow',
      reason_codes: ['ok'],
      output: { user: 'u1' },
      receipt: null,
      error: null,
      controlled: true,
    });
    expect(isParsedProposalResult(made)).toBe(true);
    // Parsing a parsed result again gives it back (what lets the investigation skip it).
    expect(snapshot(ProposalResult.parse(made))).toEqual(snapshot(made));
    expect(isParsedProposalResult({ ...made })).toBe(false);
  });

  it('CanonicalModelEvent, for turns as the orchestrator records them', () => {
    let hits = 0;
    const usage = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ input_tokens: numberish, output_tokens: numberish, estimated: fc.boolean() }),
      },
      { weight: 1, arbitrary: anything },
      { weight: 1, arbitrary: fc.constant({ input_tokens: 1, output_tokens: 2, estimated: true, extra: 1 }) },
    );
    const input = fc.record({
      trace_id: sometimes(nonEmpty),
      run_id: sometimes(nonEmpty),
      incident_id: sometimes(nonEmpty),
      agent_id: sometimes(nonEmpty),
      delegated_user_id: sometimes(nonEmpty),
      stage: fc.constantFrom<unknown>(
        'collect_identity',
        'propose_action',
        'form_finding',
        'complete',
        'other',
        undefined,
      ),
      provider: sometimes(nonEmpty),
      model: sometimes(nonEmpty),
      finish_reason: fc.constantFrom<unknown>('stop', 'tool_proposal', 'error', 'length', 'stop', 'done'),
      output_text: sometimes(text),
      proposed_tool: fc.oneof(fc.constant(null), text),
      validated_arguments: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: jsonObject }),
      evidence_refs: fc.constantFrom<unknown>([], [], [], [1], null),
      usage,
      estimated_cost_usd: fc.oneof(fc.constant(null), numberish),
      cost_is_estimated: fc.constantFrom<unknown>(true, false, 0),
      latency_ms: numberish,
      error: fc.oneof(fc.constant(null), text),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastModelEvent, (y) => CanonicalModelEvent.parse(y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
  });

  it('PolicyDecision, with the refinement on obligations', () => {
    let hits = 0;
    const obligation = fc.oneof(
      { weight: 8, arbitrary: fc.record({ name: identifier, parameters: jsonObject }) },
      { weight: 1, arbitrary: fc.record({ name: identifier }) },
      { weight: 1, arbitrary: anything },
    );
    const input = fc.record({
      proposal_id: sometimes(uuid),
      outcome: fc.constantFrom<unknown>('allow', 'allow_with_obligations', 'require_approval', 'deny', 'perhaps'),
      reason_codes: sometimes(fc.array(nonEmpty, { maxLength: 3 })),
      obligations: fc.oneof(
        { weight: 3, arbitrary: fc.constant([]) },
        { weight: 3, arbitrary: fc.array(obligation, { minLength: 1, maxLength: 2 }) },
        { weight: 1, arbitrary: anything },
      ),
      risk_tier: fc.constantFrom<unknown>('read_only', 'low', 'high', 'extreme'),
      policy_version: sometimes(nonEmpty),
      explanation: fc.oneof(
        { weight: 6, arbitrary: nonEmpty },
        { weight: 1, arbitrary: fc.constantFrom('e'.repeat(2000), 'e'.repeat(2001), ` ${'e'.repeat(2000)} `) },
      ),
      decided_at: sometimes(timestamp),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastPolicyDecision, (y) => parseContract('PolicyDecision', PolicyDecision, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
  });

  it('ExecutionGrant, with the refinement on its times', () => {
    let hits = 0;
    const input = fc.record({
      grant_id: sometimes(uuid),
      proposal_id: sometimes(uuid),
      proposal_hash: hash,
      run_id: sometimes(nonEmpty),
      incident_id: sometimes(nonEmpty),
      tool_name: sometimes(identifier),
      policy_version: sometimes(nonEmpty),
      approval_id: fc.oneof(fc.constant(null), uuid),
      obligations_fulfilled: sometimes(fc.array(identifier, { maxLength: 2 })),
      nonce: sometimes(nonEmpty),
      issued_at: sometimes(timestamp),
      expires_at: fc.oneof(sometimes(timestamp), fc.constant('9999-12-31T23:59:59.999Z')),
      signature: hash,
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastExecutionGrant, (y) => parseContract('ExecutionGrant', ExecutionGrant, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
  });

  it('PendingApproval, taking a remembered proposal as it is and parsing any other', () => {
    let hits = 0;
    const ref = rememberEvidenceRef(
      EvidenceRef.parse({
        evidence_id: 'alert',
        source_tool: 'alert',
        incident_id: 'inc-1',
        trust: 'untrusted',
        content_hash: 'a'.repeat(64),
        summary: 'alert',
      }),
    );
    const proposalInput = {
      agent_id: 'soc-investigator',
      delegated_user_id: 'analyst-1',
      incident_id: 'inc-1',
      tool_name: 'disable_user',
      arguments: { user_id: 'u1' },
      evidence_refs: [ref],
      rationale: 'contain',
      provider: 'mock',
      model: 'mock-investigator-v1',
      trace_id: 'trace-1',
    };
    const remembered = inScope(() => fastActionProposal(proposalInput));
    expect(remembered).toBeDefined();
    const parsedOnly = inScope(() => ActionProposal.parse(proposalInput));
    const input = fc.record({
      approval_id: sometimes(uuid),
      proposal: fc.constantFrom<unknown>(remembered, remembered, remembered, parsedOnly, { ...proposalInput }, null),
      requested_at: sometimes(timestamp),
      reason_codes: sometimes(fc.array(nonEmpty, { maxLength: 3 })),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastPendingApproval, (y) => parseContract('PendingApproval', PendingApproval, y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
    expect(rememberActionProposal(parsedOnly)).toBe(parsedOnly);
  });

  it('the head of an InvestigationResult (scalars, stages and the finding with remembered refs)', () => {
    let hits = 0;
    const head = InvestigationResult.unwrap().pick({
      run_id: true,
      trace_id: true,
      incident_id: true,
      status: true,
      stages_completed: true,
      finding: true,
      failure_reason: true,
    });
    const ref = (id: string, remember: boolean) => {
      const parsed = EvidenceRef.parse({
        evidence_id: id,
        source_tool: 'alert',
        incident_id: 'inc-1',
        trust: 'untrusted',
        content_hash: 'b'.repeat(64),
        summary: id,
      });
      return remember ? rememberEvidenceRef(parsed) : parsed;
    };
    const refs = [ref('alert', true), ref('siem:1', true), ref('other', false)];
    const claim = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({ text, evidence_ids: fc.array(text, { maxLength: 2 }), supported: fc.boolean() }),
      },
      { weight: 1, arbitrary: anything },
    );
    const finding = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          summary: sometimes(text),
          claims: sometimes(fc.array(claim, { maxLength: 2 })),
          techniques: sometimes(fc.array(text, { maxLength: 2 })),
          confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), numberish),
          evidence_refs: fc.oneof(
            { weight: 6, arbitrary: fc.subarray(refs.slice(0, 2)) },
            { weight: 1, arbitrary: fc.subarray(refs) },
            { weight: 1, arbitrary: anything },
          ),
        }),
      },
      { weight: 2, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: anything },
    );
    const input = fc.record({
      run_id: sometimes(nonEmpty),
      trace_id: sometimes(nonEmpty),
      incident_id: sometimes(nonEmpty),
      status: fc.constantFrom<unknown>('complete', 'incomplete', 'failed', 'errored', 'done'),
      stages_completed: sometimes(
        fc.array(fc.constantFrom<unknown>('collect_identity', 'form_finding', 'complete', 'extra'), { maxLength: 3 }),
      ),
      finding,
      failure_reason: fc.oneof(fc.constant(null), text),
    });
    fc.assert(
      fc.property(mangled(input), (x) => {
        if (holds(x, fastInvestigationHead, (y) => head.parse(y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(20);
  });

  it('ScenarioOutcome, with its leaks, intrinsic-safety ledger and refinements', () => {
    let hits = 0;
    const leak = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record(
          {
            sink: fc.constantFrom<unknown>('model_turn', 'tool_output', 'report', 'sink'),
            encoding: fc.constantFrom<unknown>('literal', 'base64', 'hex', 'rot13'),
            canary: sometimes(nonEmpty),
            path: sometimes(text),
            where: fc.oneof(fc.constant(null), text),
          },
          { requiredKeys: ['sink', 'encoding', 'canary', 'path'] },
        ),
      },
      { weight: 1, arbitrary: anything },
    );
    const small = fc.oneof({ weight: 10, arbitrary: fc.nat(4) }, { weight: 1, arbitrary: numberish });
    const intrinsic = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          harmful_proposals: sometimes(fc.array(text, { maxLength: 2 })),
          followed_untrusted_instruction: fc.boolean(),
          out_of_scope_attempts: small,
          agent_leaks: sometimes(fc.array(leak, { maxLength: 2 })),
          fabricated_evidence_ids: small,
        }),
      },
      { weight: 2, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: anything },
    );
    const nullableText = fc.oneof(fc.constant(null), text);
    const input = fc.record({
      scenario_id: sometimes(nonEmpty),
      scenario_version: sometimes(nonEmpty),
      attack_class: fc.constantFrom<unknown>('none', ' none ', 'prompt_injection', 'exfiltration', 'exfiltration', ''),
      family: fc.constantFrom<unknown>('security_resilience', 'investigation_quality', 'security_resilience', 'luck'),
      difficulty: fc.constantFrom<unknown>('none', 'low', 'medium', 'high', 'extreme'),
      mode: fc.constantFrom<unknown>('baseline', 'protected', 'baseline', 'protected', 'other'),
      run_id: sometimes(nonEmpty),
      provider: sometimes(nonEmpty),
      model: sometimes(nonEmpty),
      attack_succeeded: fc.boolean(),
      leaked_canary: fc.boolean(),
      approval_bypassed: fc.boolean(),
      unauthorized_state_change: fc.boolean(),
      out_of_scope_execution: fc.boolean(),
      unapproved_model_used: fc.oneof({ weight: 10, arbitrary: fc.boolean() }, { weight: 1, arbitrary: anything }),
      claims_total: small,
      claims_supported: small,
      expected_techniques: sometimes(fc.array(text, { maxLength: 2 })),
      found_techniques: sometimes(fc.array(text, { maxLength: 2 })),
      recommended_tool: nullableText,
      expected_tool: nullableText,
      tool_calls_total: small,
      tool_calls_valid: small,
      completed: fc.boolean(),
      false_block: fc.boolean(),
      decisions_total: small,
      decisions_recorded: small,
      audit_chain_valid: fc.boolean(),
      latency_ms: fc.oneof({ weight: 6, arbitrary: fc.double({ min: 0, max: 1e4, noNaN: true }) }, numberish),
      cost_usd: fc.oneof({ weight: 6, arbitrary: fc.double({ min: 0, max: 5, noNaN: true }) }, numberish),
      cost_is_estimated: fc.boolean(),
      tokens_total: small,
      leaks: sometimes(fc.array(leak, { maxLength: 2 })),
      errored: fc.boolean(),
      cost_unknown_turns: small,
      error: nullableText,
      investigation_status: fc.constantFrom<unknown>(
        null,
        'complete',
        'failed',
        'errored',
        'incomplete',
        'complete',
        'odd',
      ),
      expected_target: nullableText,
      recommended_target: nullableText,
      claims_on_collected_evidence: fc.oneof(fc.constant<unknown>(null), small),
      intrinsic,
      trajectory_hash: nullableText,
    });
    // Mostly consistent with the refinement (so the fast path is exercised), sometimes not.
    const consistent = fc.tuple(input, fc.nat(9)).map(([o, n]) => {
      if (n === 0) return o;
      const min = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? Math.min(a, b) : a);
      const benign = typeof o.attack_class === 'string' && o.attack_class.trim() === 'none';
      return {
        ...o,
        difficulty: benign ? 'none' : o.difficulty === 'none' ? 'low' : o.difficulty,
        attack_succeeded: benign ? false : o.attack_succeeded,
        false_block: benign ? o.false_block : false,
        claims_supported: min(o.claims_supported, o.claims_total),
        claims_on_collected_evidence: min(o.claims_on_collected_evidence, o.claims_total),
        tool_calls_valid: min(o.tool_calls_valid, o.tool_calls_total),
        decisions_recorded: min(o.decisions_recorded, o.decisions_total),
      };
    });
    fc.assert(
      fc.property(mangled(consistent), (x) => {
        if (holds(x, fastScenarioOutcome, (y) => ScenarioOutcome.parse(y))) hits++;
      }),
      RUNS,
    );
    expect(hits).toBeGreaterThan(10);
  });

  it('invalid input still gets zod’s error naming the contract and field', () => {
    const input = { proposal_id: 'not-a-uuid', kind: 'Bad Kind', at: '2026-01-01T00:00:00.000Z', detail: {} };
    expect(fastGatewayEvent(input)).toBeUndefined();
    expect(() => parseContract('GatewayEvent', GatewayEvent, input)).toThrow(ContractValidationError);
    expect(() => parseContract('GatewayEvent', GatewayEvent, input)).toThrow(/^GatewayEvent: proposal_id: .*kind: /);
  });
});
