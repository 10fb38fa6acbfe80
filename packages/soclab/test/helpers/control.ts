import { randomUUID } from 'node:crypto';
import type { GatewayConfigInput } from '../../src/contracts/gateway.js';
import { ActionProposal } from '../../src/contracts/proposals.js';
import { ApprovalService } from '../../src/control/approvals.js';
import type { SimulatedApprover } from '../../src/control/approver.js';
import { Executor } from '../../src/control/executor.js';
import { ControlGateway } from '../../src/control/gateway.js';
import { GrantSigner } from '../../src/control/grants.js';
import { CedarPolicyEngine } from '../../src/control/policy/cedar-engine.js';
import type { PolicyEngine } from '../../src/control/policy/engine.js';
import { createSimulator, type SimulatorState } from '../../src/simulator/state.js';

export const INCIDENT = 'INC-1001';
const EVIDENCE_IDS = [
  'alert',
  'get_identity_profile:1',
  'get_authentication_history:2',
  'get_endpoint_status:3',
  'lookup_indicator:4',
  'search_siem_events:5',
];

/** A proposal as the orchestrator would build it, citing the first `evidence` ids of a clean run. */
export function makeProposal(
  tool: string,
  args: Record<string, unknown>,
  options: { evidence?: number; incident?: string; model?: string; proposalId?: string } = {},
): ActionProposal {
  const incident = options.incident ?? INCIDENT;
  return ActionProposal.parse({
    proposal_id: options.proposalId ?? randomUUID(),
    agent_id: 'soc-investigator',
    delegated_user_id: 'analyst-1',
    incident_id: incident,
    tool_name: tool,
    arguments: args,
    evidence_refs: EVIDENCE_IDS.slice(0, Math.max(1, options.evidence ?? 1)).map((id) => ({
      evidence_id: id,
      source_tool: id.split(':')[0],
      incident_id: incident,
      trust: 'untrusted',
      content_hash: 'c'.repeat(64),
      summary: `evidence ${id}`,
    })),
    rationale: 'test proposal',
    provider: 'mock',
    model: options.model ?? 'mock-investigator-v1',
    trace_id: 'trace-test',
  });
}

let sharedEngine: CedarPolicyEngine | undefined;
/** The bundled policy, loaded once per test file. */
export function bundledEngine(): CedarPolicyEngine {
  sharedEngine ??= CedarPolicyEngine.load({ dir: undefined });
  return sharedEngine;
}

export interface ControlPlane {
  gateway: ControlGateway;
  executor: Executor;
  signer: GrantSigner;
  approvals: ApprovalService;
  simulator: SimulatorState;
  runId: string;
}

/** A complete control plane over a fresh simulator (scope on, fixture protected assets). */
export function controlPlane(
  options: {
    config?: Partial<GatewayConfigInput>;
    engine?: PolicyEngine;
    approver?: SimulatedApprover | null;
    now?: () => Date;
    injections?: string[];
  } = {},
): ControlPlane {
  const runId = randomUUID();
  const simulator = createSimulator({ enforceScope: true, runId, injections: options.injections });
  const signer = new GrantSigner({ now: options.now });
  const approvals = new ApprovalService({ now: options.now });
  const executor = new Executor({ simulator, verifier: signer.verifier(), runId, incidentId: INCIDENT });
  const gateway = new ControlGateway({
    config: { incident_id: INCIDENT, protected_assets: simulator.protectedAssets, ...options.config },
    engine: options.engine ?? bundledEngine(),
    executor,
    signer,
    approvals,
    runId,
    approver: options.approver,
    canaries: simulator.canarySecrets,
    now: options.now,
  });
  return { gateway, executor, signer, approvals, simulator, runId };
}

/** Kinds of the gateway events recorded for one proposal, in order. */
export function kindsFor(gateway: ControlGateway, proposalId: string): string[] {
  return gateway.events.filter((e) => e.proposal_id === proposalId).map((e) => e.kind);
}
