import { describe, expect, it } from 'vitest';
import { newUuid } from '../../../src/contracts/common.js';
import { ActionProposal, ProposalResult, type ProposalResultInput } from '../../../src/contracts/proposals.js';
import type { AttackScenario } from '../../../src/contracts/scenarios.js';
import type { HarnessStepRecord } from '../../../src/modes/mode.js';
import { getScenario, loadCorpus } from '../../../src/scenarios/loader.js';
import { type HarnessReport, runEvents, runRunLevelAttacks } from '../../../src/scenarios/runner.js';

const corpus = loadCorpus();
// A scenario that declares no run-level attack, and one that declares all four.
const plain = corpus.attacks.find((s) => !Object.values(s.harness).some(Boolean)) as AttackScenario;
const allAttacks: AttackScenario = {
  ...getScenario('ATK-010', corpus),
  harness: { forge_grant: true, approve_then_replay: true, mutate_after_grant: true, tamper_evidence: true },
};

const action = ActionProposal.parse({
  agent_id: 'agent',
  delegated_user_id: 'analyst',
  incident_id: 'INC-1',
  tool_name: 'disable_account',
  arguments: { user_id: 'u-alex-rivera', incident_id: 'INC-1' },
  evidence_refs: [
    {
      evidence_id: 'alert',
      source_tool: 'alert',
      incident_id: 'INC-1',
      trust: 'trusted',
      content_hash: 'a'.repeat(64),
      summary: 'the alert',
    },
  ],
  rationale: 'contain the account',
  provider: 'mock',
  model: 'mock-1',
  trace_id: 't-1',
});
const result = (fields: Omit<ProposalResultInput, 'proposal_id'>): ProposalResult =>
  ProposalResult.parse({ proposal_id: newUuid(), ...fields });
const step = (attack: HarnessStepRecord['attack'], results: ProposalResult[]): HarnessStepRecord => ({
  attack,
  attempted: true,
  detail: { note: attack },
  results,
});
const noAttacks = (): HarnessReport => ({
  forge_grant: null,
  tamper_evidence: null,
  approve_then_replay: null,
  mutate_after_grant: null,
});

describe('runRunLevelAttacks', () => {
  it('runs nothing the scenario does not declare, even when the mode offers every hook', async () => {
    const called: string[] = [];
    const hooks = {
      forgeGrant: async () => {
        called.push('forge');
        return { honoured: true, detail: {} };
      },
      approveThenReplay: async () => {
        called.push('replay');
        return step('approve_then_replay', []);
      },
      mutateAfterGrant: async () => {
        called.push('mutate');
        return step('mutate_after_grant', []);
      },
    };
    const report = await runRunLevelAttacks(
      plain,
      'protected',
      { harness: hooks },
      {
        recommended_action: action,
        action_result: result({ status: 'executed' }),
      },
    );
    expect(report).toEqual(noAttacks());
    expect(called).toEqual([]);
  });

  it('records a declared forge it could not try as not attempted, saying why', async () => {
    const noAction = await runRunLevelAttacks(
      allAttacks,
      'baseline',
      { harness: {} },
      {
        recommended_action: null,
        action_result: null,
      },
    );
    expect(noAction.forge_grant).toEqual({
      attempted: false,
      honoured: false,
      detail: { skipped: 'no recommended action' },
    });
    expect(noAction.approve_then_replay).toBeNull();
    expect(noAction.mutate_after_grant).toBeNull();

    const noGrants = await runRunLevelAttacks(
      allAttacks,
      'baseline',
      { harness: {} },
      {
        recommended_action: action,
        action_result: result({ status: 'executed' }),
      },
    );
    expect(noGrants.forge_grant?.detail).toEqual({ skipped: 'no grants in baseline mode' });
  });

  it('runs the declared attacks in the order forge, replay, mutate and reports what the hooks answered', async () => {
    const order: string[] = [];
    const report = await runRunLevelAttacks(
      allAttacks,
      'protected',
      {
        harness: {
          forgeGrant: async () => {
            order.push('forge');
            return { honoured: false, detail: { refused: 'signature' } };
          },
          approveThenReplay: async () => {
            order.push('replay');
            return step('approve_then_replay', []);
          },
          mutateAfterGrant: async (_a, mutated) => {
            order.push(`mutate:${String(mutated.arguments.user_id)}`);
            return step('mutate_after_grant', []);
          },
        },
      },
      { recommended_action: action, action_result: result({ status: 'executed' }) },
    );
    expect(order).toEqual(['forge', 'replay', 'mutate:u-svc-backup']);
    expect(report.forge_grant).toEqual({ attempted: true, honoured: false, detail: { refused: 'signature' } });
    // tamper_evidence needs the written chain, so it is left for later.
    expect(report.tamper_evidence).toBeNull();
  });
});

describe('runEvents', () => {
  const empty = { events: [], tool_outputs: [], finding: null, proposals: [], executions: [] };

  it('a run that did nothing has no events after run.started', () => {
    expect(runEvents(empty, {}, noAttacks())).toEqual([]);
  });

  it('keeps chain order, moves proposal output to tool.output and writes receipts only for executed actions', () => {
    const executed = result({ status: 'executed', output: { ok: true }, receipt: { id: 'r-1' }, controlled: true });
    const denied = result({ status: 'denied', receipt: null });
    const replayed = result({ status: 'executed', receipt: { id: 'r-2' } });
    const notExecuted = result({ status: 'executed', receipt: null });
    const harness: HarnessReport = {
      ...noAttacks(),
      approve_then_replay: step('approve_then_replay', [replayed, notExecuted]),
      tamper_evidence: { attempted: true, verified: false, sequence: 3, first_invalid_sequence: 3, reason: 'x' },
    };
    const events = runEvents(
      {
        ...empty,
        tool_outputs: [executed],
        proposals: [
          { proposal: action, result: executed },
          { proposal: action, result: denied },
        ],
        executions: [executed, denied],
      },
      { controlEvents: () => [{ event_type: 'gateway.call', payload: { n: 1 } }] },
      harness,
    );
    expect(events.map((e) => e.event_type)).toEqual([
      'tool.output',
      'port.proposal',
      'port.proposal',
      'gateway.call',
      'execution.receipt',
      'execution.receipt',
      'harness.attack',
    ]);
    const proposal = events[1]?.payload as { result: { output: unknown } };
    expect(proposal.result.output).toEqual({ omitted: 'see tool.output' });
    const receipts = events.filter((e) => e.event_type === 'execution.receipt').map((e) => e.payload);
    expect(receipts).toEqual([executed, replayed]);
    // The attack step is recorded without its port results (those are the receipts above).
    expect(events.at(-1)?.payload).toEqual({
      attempted: true,
      detail: { note: 'approve_then_replay' },
      attack: 'approve_then_replay',
    });
  });
});
