import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { afterAll, describe, expect, it } from 'vitest';
import { type CedarAuthorizer, CedarPolicyEngine } from '../../../../src/control/policy/cedar-engine.js';
import {
  decideOrFailClosed,
  type PolicyEngine,
  PolicyLoadError,
  PolicyUnavailableError,
  withDeadline,
} from '../../../../src/control/policy/engine.js';
import { BUNDLED_POLICY_DIR, resolvePolicyDir } from '../../../../src/control/policy/folder.js';
import { PolicyInput, type PolicyInputData } from '../../../../src/control/policy/input.js';
import { loadPolicyTestTable, runPolicyTestTable } from '../../../../src/control/policy/test-table.js';
import { bundledEngine, controlPlane, kindsFor, makeProposal } from '../../../helpers/control.js';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A writable copy of the bundled policy folder. */
function policyCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'soclab-policy-'));
  scratch.push(dir);
  cpSync(BUNDLED_POLICY_DIR, dir, { recursive: true });
  return dir;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`test setup: ${from} not found in ${file}`);
  writeFileSync(file, text.replace(from, to));
}

const cases = loadPolicyTestTable(BUNDLED_POLICY_DIR);

describe('policy test table (data/policies/tests)', () => {
  it('ships at least 40 cases, including the 39 of the reference policy and the catch-all CIDR rule', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.filter((c) => c.source?.startsWith('origin')).length).toBeGreaterThanOrEqual(33);
    expect(cases.some((c) => c.source === 'cidr rule')).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const report = await runPolicyTestTable(bundledEngine(), [testCase], BUNDLED_POLICY_DIR);
    const [result] = report.results;
    expect(result?.mismatches, `${testCase.location}`).toEqual([]);
    expect(result?.actual.outcome).toBe(testCase.expect.decision);
  });

  it('reports a wrong expectation as a failure with the difference', async () => {
    const dir = policyCopy();
    edit(
      join(dir, 'tests', 'authorization.yaml'),
      'expect: { decision: deny, reason_codes: [unapproved_model] }',
      'expect: { decision: allow, reason_codes: [unapproved_model] }',
    );
    const engine = CedarPolicyEngine.load({ dir });
    const report = await runPolicyTestTable(engine, loadPolicyTestTable(dir), dir);
    expect(report.failed).toBe(1);
    const failed = report.results.find((r) => !r.passed);
    expect(failed?.name).toBe('unapproved_model_denied');
    expect(failed?.mismatches).toEqual(['decision deny, expected allow']);
    expect(failed?.location).toMatch(/authorization\.yaml:\d+$/);
  });
});

describe('Cedar policy engine', () => {
  it('records the declared policy version and a content digest on every decision', async () => {
    const engine = bundledEngine();
    expect(engine.version).toBe('2026.09.05-1');
    expect(engine.digest).toMatch(/^[0-9a-f]{64}$/);
    const { decision } = await decideOrFailClosed(engine, cases[0]!.resolvedInput as never);
    expect(decision.policy_version).toBe('2026.09.05-1');
    expect(decision.determining_policies).toEqual(['permit_read_only']);
  });

  it('SOCLAB_POLICY_DIR swaps in a user policy folder, and its rules decide', async () => {
    const dir = policyCopy();
    edit(join(dir, 'manifest.json'), '"2026.09.05-1"', '"acme-7"');
    // The user's policy makes revoke_sessions a high-impact action by raising the threshold rule to L5.
    edit(join(dir, 'deny.cedar'), 'context.session.authority_rank < 4', 'context.session.authority_rank < 5');
    expect(resolvePolicyDir(undefined, { SOCLAB_POLICY_DIR: dir })).toBe(dir);
    const previous = process.env.SOCLAB_POLICY_DIR;
    process.env.SOCLAB_POLICY_DIR = dir;
    try {
      const engine = CedarPolicyEngine.load();
      expect(engine.version).toBe('acme-7');
      const input = cases.find((c) => c.name === 'benign_subject_revocation_escalates')!.resolvedInput;
      const decision = await engine.decide(input as never);
      expect(decision.outcome).toBe('deny');
      expect(decision.reason_codes).toEqual(['authority_below_action_threshold']);
    } finally {
      if (previous === undefined) delete process.env.SOCLAB_POLICY_DIR;
      else process.env.SOCLAB_POLICY_DIR = previous;
    }
  });

  it('validates policies against the schema at load and names file:line:col (attribute typo)', () => {
    const dir = policyCopy();
    edit(join(dir, 'permit.cedar'), 'resource.risk_tier == "read_only"', 'resource.riskk == "read_only"');
    let error: unknown;
    try {
      CedarPolicyEngine.load({ dir });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyLoadError);
    const text = (error as PolicyLoadError).message;
    expect(text).toMatch(/permit\.cedar:\d+:\d+: .*riskk/);
  });

  it('refuses a corrupt policy file with its position', () => {
    const dir = policyCopy();
    writeFileSync(
      join(dir, 'deny.cedar'),
      '@id("broken")\n@reason("x")\nforbid (principal, action, resource) when {\n',
    );
    expect(() => CedarPolicyEngine.load({ dir })).toThrow(/deny\.cedar:\d+:\d+/);
  });

  it('refuses annotations it cannot interpret (unknown decision, obligations on a plain allow)', () => {
    const dir = policyCopy();
    edit(
      join(dir, 'permit.cedar'),
      '@decision("require_approval")\n@reason("approval_required_low_risk")',
      '@decision("maybe")\n@reason("approval_required_low_risk")',
    );
    expect(() => CedarPolicyEngine.load({ dir })).toThrow(/escalate_low_risk needs @decision/);
    const dir2 = policyCopy();
    edit(
      join(dir2, 'permit.cedar'),
      '@reason("bounded_autonomy_low_risk")',
      '@reason("bounded_autonomy_low_risk")\n@obligations("[{\\"name\\":\\"notify_incident_owner\\"}]")',
    );
    expect(() => CedarPolicyEngine.load({ dir: dir2 })).toThrow(/is allow and must not carry @obligations/);
  });

  it('proves at load that the schema describes the request the gateway builds', () => {
    const dir = policyCopy();
    edit(join(dir, 'schema.cedarschema'), '    all_printable_ascii: Bool,\n', '');
    edit(join(dir, 'deny.cedar'), '!context.proposal.arguments.all_printable_ascii', 'false');
    expect(() => CedarPolicyEngine.load({ dir })).toThrow(/schema does not describe the request the gateway builds/);
  });

  it('gives the same answers when every request is also validated against the schema', async () => {
    const strict = CedarPolicyEngine.load({ validateRequests: true });
    const report = await runPolicyTestTable(strict, cases, BUNDLED_POLICY_DIR);
    expect(report.failed).toBe(0);
  });

  it('checks each request against the preparsed schema when asked to, and only then', () => {
    // A request with a context attribute the schema does not declare: Cedar refuses it only when validating.
    const undeclared: CedarAuthorizer = (call) =>
      cedar.statefulIsAuthorized({ ...call, context: { ...(call.context as object), not_in_schema: true } });
    const input = cases.map((c) => c.resolvedInput).find((i) => PolicyInput.safeParse(i).success) as PolicyInputData;
    expect(() => CedarPolicyEngine.load({ validateRequests: true, authorizer: undeclared }).decideSync(input)).toThrow(
      PolicyUnavailableError,
    );
    expect(CedarPolicyEngine.load({ authorizer: undeclared }).decideSync(input).outcome).toBe(
      CedarPolicyEngine.load().decideSync(input).outcome,
    );
  });

  it('answers a repeated request as Cedar answered it the first time, with a decision of its own each time', () => {
    const memo = CedarPolicyEngine.load();
    // An injected authorizer is never memoised: this engine asks Cedar every time.
    let cedarCalls = 0;
    const direct = CedarPolicyEngine.load({
      authorizer: (call) => {
        cedarCalls += 1;
        return cedar.statefulIsAuthorized(call);
      },
    });
    const inputs = cases.map((c) => c.resolvedInput).filter((input) => PolicyInput.safeParse(input).success);
    expect(inputs.length).toBeGreaterThan(30);
    const outcomes = new Set<string>();
    for (let round = 0; round < 3; round++) {
      for (const input of inputs) {
        const fromMemo = memo.decideSync(input as PolicyInputData);
        expect(fromMemo).toEqual(direct.decideSync(input as PolicyInputData));
        outcomes.add(fromMemo.outcome);
        // A caller that changes its decision does not change the next one.
        fromMemo.reason_codes.push('changed_by_caller');
        fromMemo.determining_policies.length = 0;
      }
    }
    expect(cedarCalls).toBe(3 * inputs.length);
    expect([...outcomes].sort()).toEqual(['allow', 'allow_with_obligations', 'deny', 'require_approval']);
  });

  it('names the schema line and column of a schema error, whether it is a syntax error or an unknown type', () => {
    const loadError = (dir: string): PolicyLoadError => {
      try {
        CedarPolicyEngine.load({ dir });
      } catch (error) {
        if (error instanceof PolicyLoadError) return error;
        throw error;
      }
      throw new Error('the folder loaded');
    };
    const syntax = policyCopy();
    edit(join(syntax, 'schema.cedarschema'), '  entity Agent;', '  entity Agent');
    expect(loadError(syntax).problems.join('\n')).toMatch(/schema\.cedarschema:\d+:\d+: /);
    // The schema is handed to Cedar in its JSON form after the first parse; errors must still point into the text.
    const unknownType = policyCopy();
    edit(join(unknownType, 'schema.cedarschema'), '    registered: Bool,', '    registered: NoSuchType,');
    const problems = loadError(unknownType).problems.join('\n');
    expect(problems).toMatch(/NoSuchType/);
    const line = readFileSync(join(unknownType, 'schema.cedarschema'), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('NoSuchType'));
    expect(problems).toContain(`schema.cedarschema:${line + 1}:`);
  });

  it('refuses a folder without a schema', () => {
    const dir = policyCopy();
    rmSync(join(dir, 'schema.cedarschema'));
    expect(() => CedarPolicyEngine.load({ dir })).toThrow(/exactly one \*\.cedarschema/);
  });
});

describe('fail closed', () => {
  const readInput = cases.find((c) => c.name === 'read_only_allowed_at_l4')!.resolvedInput;

  it('a thrown engine error becomes PolicyUnavailableError and a policy_unavailable deny', async () => {
    const engine = CedarPolicyEngine.load({
      authorizer: () => {
        throw new Error('wasm trap: unreachable');
      },
    });
    await expect(engine.decide(readInput as never)).rejects.toBeInstanceOf(PolicyUnavailableError);
    const { decision, error } = await decideOrFailClosed(engine, readInput as never);
    expect(decision.outcome).toBe('deny');
    expect(decision.reason_codes).toEqual(['policy_unavailable']);
    expect(error?.message).toContain('wasm trap');
  });

  it('an unexpected engine answer (no diagnostics, unknown decision, evaluation errors) fails closed', async () => {
    const answers = [
      { type: 'success', response: { decision: 'allow' } },
      { type: 'success', response: { decision: 'maybe', diagnostics: { reason: [], errors: [] } } },
      {
        type: 'success',
        response: {
          decision: 'allow',
          diagnostics: {
            reason: ['permit_read_only'],
            errors: [{ policyId: 'deny_unknown_tool', error: { message: 'overflow' } }],
          },
        },
      },
      { type: 'success', response: { decision: 'allow', diagnostics: { reason: ['not_a_policy'], errors: [] } } },
      { type: 'success', response: { decision: 'deny', diagnostics: { reason: ['permit_read_only'], errors: [] } } },
      { type: 'failure', errors: [{ message: 'context is not valid' }], warnings: [] },
      null,
    ];
    for (const answer of answers) {
      const engine = CedarPolicyEngine.load({ authorizer: () => answer as never });
      await expect(engine.decide(readInput as never), JSON.stringify(answer)).rejects.toBeInstanceOf(
        PolicyUnavailableError,
      );
    }
  });

  it('an engine that does not answer in time fails closed', async () => {
    const hanging: PolicyEngine = { version: 'v', digest: '0'.repeat(64), decide: () => new Promise(() => {}) };
    const guarded = withDeadline(hanging, 25);
    await expect(guarded.decide(readInput as never)).rejects.toThrow(/did not answer within 25 ms/);
  });

  it('with the engine down, the gateway refuses state changes and reads and records policy_unavailable', async () => {
    const down: PolicyEngine = {
      version: 'v',
      digest: '0'.repeat(64),
      decide: async () => {
        throw new PolicyUnavailableError('connection refused');
      },
    };
    const plane = controlPlane({ engine: down });
    const write = makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 });
    const read = makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' });
    const w = await plane.gateway.propose(write);
    const r = await plane.gateway.propose(read);
    for (const result of [w, r]) {
      expect(result.status).toBe('failed_closed');
      expect(result.reason_codes).toEqual(['policy_unavailable']);
      expect(result.controlled).toBe(true);
    }
    expect(kindsFor(plane.gateway, write.proposal_id)).toEqual(['proposal_received', 'policy_unavailable']);
    expect(plane.simulator.accessLog).toHaveLength(0);
    expect(plane.simulator.executionLog).toHaveLength(0);
  });

  it('degraded read-only continuation lets reads through (redacted) but never state changes', async () => {
    const down: PolicyEngine = {
      version: 'v',
      digest: '0'.repeat(64),
      decide: async () => {
        throw new PolicyUnavailableError('timeout');
      },
    };
    const plane = controlPlane({ engine: down, config: { degraded_read_only: true } });
    const read = makeProposal('search_siem_events', { query: 'u-alex-rivera' });
    const r = await plane.gateway.propose(read);
    expect(r.status).toBe('executed');
    expect(r.reason_codes).toEqual(['degraded_read_only']);
    expect(JSON.stringify(r.output)).not.toMatch(/CANARY-SECRET-\d/);
    expect(kindsFor(plane.gateway, read.proposal_id)).toEqual([
      'proposal_received',
      'policy_unavailable',
      'degraded_read_only_continuation',
      'policy_decision',
      'grant_issued',
      'executed',
    ]);
    const write = await plane.gateway.propose(
      makeProposal('revoke_sessions', { user_id: 'u-alex-rivera' }, { evidence: 6 }),
    );
    expect(write.status).toBe('failed_closed');
    expect(plane.simulator.executionLog).toHaveLength(0);
  });

  it('a corrupt policy folder leaves protected mode failing closed (via unavailableEngine)', async () => {
    const dir = policyCopy();
    writeFileSync(join(dir, 'permit.cedar'), 'permit (principal, action, resource) when { context.nope };');
    const { loadPolicyEngine } = await import('../../../../src/control/policy/index.js');
    const loaded = loadPolicyEngine({ dir });
    expect(loaded.error).toBeInstanceOf(PolicyLoadError);
    const plane = controlPlane({ engine: loaded.engine });
    const result = await plane.gateway.propose(makeProposal('get_identity_profile', { user_id: 'u-alex-rivera' }));
    expect(result.status).toBe('failed_closed');
    expect(result.reason_codes).toEqual(['policy_unavailable']);
  });
});
