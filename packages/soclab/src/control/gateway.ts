import { errorMessage } from '@aeh/harness/errors';
import { parseContract } from '../contracts/common.js';
import { type Obligation, PolicyDecision } from '../contracts/decisions.js';
import type { DecisionOutcome, ExecutionStatus } from '../contracts/enums.js';
import {
  fastGatewayEvent,
  fastPolicyDecision,
  fastProposalResult,
  rememberProposalResult,
} from '../contracts/fast-parse.js';
import { GatewayConfig, type GatewayConfigInput, GatewayEvent } from '../contracts/gateway.js';
import type { ExecutionGrant } from '../contracts/grants.js';
import type { ToolRegistryEntry } from '../contracts/policy-input.js';
import { type ActionProposal, ProposalResult } from '../contracts/proposals.js';
import { reproducibleNow, seededNow } from '../contracts/reproducible.js';
import { DEFAULT_TOOL_REGISTRY } from '../contracts/tools.js';
import type { ProposalPort } from '../orchestrator/port.js';
import type { Ablation } from './ablation-switches.js';
import type { ApprovalService } from './approvals.js';
import type { ExternalApprover, SimulatedApprover } from './approver.js';
import { ExecutionRefusedError, type Executor } from './executor.js';
import type { GrantSigner } from './grants.js';
import { matchApprovedModel } from './model-identity.js';
import { type EngineDecision, POLICY_UNAVAILABLE, type PolicyEngine } from './policy/engine.js';
import { markGatewayPolicyInput } from './policy/fast-input.js';
import type { PolicyInputData } from './policy/input.js';
import { redact, redactText } from './redaction.js';
import { isStateChanging } from './tool-registry.js';

export interface GatewayOptions {
  config: GatewayConfigInput;
  engine: PolicyEngine;
  executor: Executor;
  signer: GrantSigner;
  approvals: ApprovalService;
  runId: string;
  /** Tool registry (risk tiers and allowed arguments); default the ten simulated tools. */
  tools?: Readonly<Record<string, ToolRegistryEntry>>;
  /**
   * Who answers approval requests: a simulated approver (at once) or an external one such as a person in the API's
   * inbox (the proposal waits for the answer); null leaves them pending (the default).
   */
  approver?: SimulatedApprover | ExternalApprover | null;
  /** Exact canary values of the run, redacted in addition to the configured patterns. */
  canaries?: readonly string[];
  /** Called with every gateway event as it is recorded (e.g. to append it to the evidence chain). */
  onEvent?: (event: GatewayEvent) => void;
  now?: () => Date;
  /** Monotonic milliseconds, for the elapsed-time limit. */
  monotonicMs?: () => number;
  /** Ablation only (control/ablation-switches.ts): `approvals` and `redaction` switch those gateway steps off. */
  ablation?: Ablation;
}

/**
 * The control gateway: the protected implementation of the orchestrator's port.
 *
 * For each proposal it builds the authorization context itself (authority level, approved models, tool registry,
 * run limits, approval state, protected assets — from configuration and the approval service, never from model
 * output), asks the policy engine, and then either denies, routes to a human, or fulfils the obligations, issues a
 * signed single-use grant and hands proposal and grant to the executor. Any failure on that path fails closed. Every
 * step is recorded as a `GatewayEvent`.
 */
export class ControlGateway implements ProposalPort {
  readonly config: GatewayConfig;
  readonly runId: string;
  private readonly engine: PolicyEngine;
  private readonly executor: Executor;
  private readonly signer: GrantSigner;
  private readonly approvals: ApprovalService;
  private readonly tools: Readonly<Record<string, ToolRegistryEntry>>;
  private readonly approver: SimulatedApprover | ExternalApprover | null;
  private readonly patterns: readonly string[];
  private readonly onEvent: GatewayOptions['onEvent'];
  private readonly now: () => Date;
  private readonly monotonicMs: () => number;
  private readonly startedMs: number;
  private readonly ablation: Ablation;
  private readonly eventList: GatewayEvent[] = [];
  private readonly decisionMap = new Map<string, PolicyDecision>();
  private readonly grantMap = new Map<string, ExecutionGrant>();
  private readonly turnModels: { provider: string; model: string }[] = [];
  private callsMade = 0;
  private costUsedUsd = 0;

  constructor(options: GatewayOptions) {
    this.config = parseContract('GatewayConfig', GatewayConfig, options.config);
    this.runId = options.runId;
    this.engine = options.engine;
    this.executor = options.executor;
    this.signer = options.signer;
    this.approvals = options.approvals;
    this.tools = options.tools ?? DEFAULT_TOOL_REGISTRY;
    this.approver = options.approver ?? null;
    this.patterns = [...this.config.canary_patterns, ...(options.canaries ?? [])];
    this.onEvent = options.onEvent;
    this.now = options.now ?? reproducibleNow;
    this.monotonicMs = options.monotonicMs ?? (() => seededNow()?.getTime() ?? performance.now());
    this.startedMs = this.monotonicMs();
    this.ablation = options.ablation ?? new Set();
  }

  /** Every gateway event, in order. */
  get events(): readonly GatewayEvent[] {
    return this.eventList;
  }

  /** The policy decision last taken for each proposal id. */
  get decisions(): ReadonlyMap<string, PolicyDecision> {
    return this.decisionMap;
  }

  /** Grants issued, by grant id. */
  get grants(): ReadonlyMap<string, ExecutionGrant> {
    return this.grantMap;
  }

  get callsMadeCount(): number {
    return this.callsMade;
  }

  get costUsed(): number {
    return this.costUsedUsd;
  }

  /** The grant last issued for a proposal id, if any. */
  grantFor(proposalId: string): ExecutionGrant | undefined {
    let found: ExecutionGrant | undefined;
    for (const grant of this.grantMap.values()) if (grant.proposal_id === proposalId) found = grant;
    return found;
  }

  /** Add one model turn's cost (negative values count as zero). */
  recordCost(usd: number): void {
    if (Number.isFinite(usd) && usd > 0) this.costUsedUsd += usd;
  }

  /**
   * Record the provider and model a turn actually reported. The policy then judges every later proposal by the
   * model that produced it, not by the label the proposal carries; an unapproved turn is recorded as an event.
   */
  observeTurn(provider: string, model: string): boolean {
    this.turnModels.push({ provider, model });
    const approved = this.isApprovedModel(provider, model);
    if (!approved) this.record(null, 'unapproved_model_turn', { provider, model });
    return approved;
  }

  /** The port hook the orchestrator calls after every model turn. */
  recordTurn(turn: { provider: string; model: string }): void {
    this.observeTurn(turn.provider, turn.model);
  }

  /** Exact, or a dated snapshot / alias of an approved model (control/model-identity.ts). */
  isApprovedModel(provider: string, model: string): boolean {
    return matchApprovedModel(this.config.approved_models, provider, model) !== null;
  }

  async propose(proposal: ActionProposal): Promise<ProposalResult> {
    const stateChanging = isStateChanging(this.tools, proposal.tool_name);
    this.callsMade += 1;
    this.record(proposal.proposal_id, 'proposal_received', {
      tool: proposal.tool_name,
      incident: proposal.incident_id,
      state_changing: stateChanging,
    });

    let decision = await this.decide(proposal, stateChanging);
    if (decision === null) return this.result(proposal, 'failed_closed', null, [POLICY_UNAVAILABLE]);

    if (decision.outcome === 'deny') return this.result(proposal, 'denied', 'deny', decision.reason_codes);

    if (decision.outcome === 'require_approval' && this.ablation.has('approvals')) {
      this.record(proposal.proposal_id, 'approval_skipped', { ablated: 'approvals' });
    } else if (decision.outcome === 'require_approval') {
      const pending = this.approvals.request(proposal, decision.reason_codes);
      this.record(proposal.proposal_id, 'approval_requested', {
        approval_id: pending.approval_id,
        reasons: [...decision.reason_codes],
      });
      const verdict = (await this.approver?.review(pending)) ?? null;
      if (verdict === null) {
        return this.result(proposal, 'awaiting_approval', 'require_approval', decision.reason_codes);
      }
      this.approvals.decide(pending.approval_id, verdict.approver_id, verdict.decision, verdict.reason);
      this.record(proposal.proposal_id, 'approval_decided', {
        approval_id: pending.approval_id,
        approver: verdict.approver_id,
        decision: verdict.decision,
      });
      if (verdict.decision === 'rejected') return this.result(proposal, 'denied', 'deny', ['approval_rejected']);
      // The approval changes the context, so the policy decides again.
      decision = await this.decide(proposal, stateChanging);
      if (decision === null) return this.result(proposal, 'failed_closed', null, [POLICY_UNAVAILABLE]);
      if (decision.outcome === 'deny') return this.result(proposal, 'denied', 'deny', decision.reason_codes);
      if (decision.outcome === 'require_approval') {
        return this.result(proposal, 'awaiting_approval', 'require_approval', decision.reason_codes);
      }
    }

    // Obligations, in the order the policy gave them. An obligation the gateway cannot fulfil blocks the action.
    const fulfilled: string[] = [];
    let redactOutput = false;
    for (const obligation of decision.obligations) {
      if (!this.fulfil(proposal, obligation)) {
        this.record(proposal.proposal_id, 'obligation_failed', { error: `unknown obligation ${obligation.name}` });
        return this.result(proposal, 'failed_closed', decision.outcome, ['obligation_failed']);
      }
      if (obligation.name === 'redact_secrets') redactOutput = true;
      fulfilled.push(obligation.name);
    }

    // Defense in depth: whatever the policy said, the only state change that may run without a valid approval
    // bound to this exact proposal is a low-risk action at L5.
    const approval = this.approvals.validFor(proposal, this.now());
    const unattendedAllowed = this.config.authority_level === 'L5' && decision.risk_tier === 'low';
    if (stateChanging && approval === null && !unattendedAllowed && !this.ablation.has('approvals')) {
      this.record(proposal.proposal_id, 'approval_binding_failed', {});
      return this.result(proposal, 'failed_closed', decision.outcome, ['approval_not_bound']);
    }

    const grant = this.signer.issue(proposal, {
      runId: this.runId,
      policyVersion: decision.policy_version,
      approvalId: approval?.approval_id ?? null,
      obligationsFulfilled: fulfilled,
    });
    this.grantMap.set(grant.grant_id, grant);
    this.record(proposal.proposal_id, 'grant_issued', {
      grant_id: grant.grant_id,
      approval_id: grant.approval_id,
      expires_at: grant.expires_at,
    });

    let toolResult: ReturnType<Executor['execute']>;
    try {
      toolResult = this.executor.execute(proposal, grant);
    } catch (error) {
      const err =
        error instanceof ExecutionRefusedError ? error : new ExecutionRefusedError('tool_error', String(error));
      this.record(proposal.proposal_id, 'execution_refused', {
        error: redactText(err.message, this.patterns),
        code: err.code,
      });
      return this.result(proposal, 'failed_closed', decision.outcome, ['executor_refused'], err.message);
    } finally {
      // An approval authorizes one execution attempt, successful or not.
      if (approval !== null) this.approvals.consume(approval.approval_id);
    }
    this.record(proposal.proposal_id, 'executed', {
      tool: proposal.tool_name,
      state_changing: stateChanging,
      grant_id: grant.grant_id,
    });
    if (toolResult.kind === 'read') {
      const output =
        redactOutput && !this.ablation.has('redaction') ? redact(toolResult.output, this.patterns) : toolResult.output;
      return this.result(proposal, 'executed', decision.outcome, decision.reason_codes, null, { output });
    }
    return this.result(proposal, 'executed', decision.outcome, decision.reason_codes, null, {
      receipt: toolResult.receipt,
    });
  }

  /** Build the policy input from configuration, the approval service and the run's counters. */
  policyInput(proposal: ActionProposal): PolicyInputData {
    const record = this.approvals.recordFor(proposal.proposal_id);
    const valid = this.approvals.validFor(proposal, this.now()) !== null;
    const present = valid || (record !== undefined && record.decision === 'approved');
    // Judge the proposal by the model that actually answered last, when a turn was observed.
    const lastTurn = this.turnModels[this.turnModels.length - 1];
    const seen = lastTurn ?? { provider: proposal.provider, model: proposal.model };
    // A dated snapshot of an approved model is judged as the approved name (the policy compares names exactly).
    const { provider, model } = (() => {
      const match = matchApprovedModel(this.config.approved_models, seen.provider, seen.model);
      return match ? { provider: match[0], model: match[1] } : seen;
    })();
    const limits = this.config.limits;
    return {
      proposal: {
        agent_id: proposal.agent_id,
        delegated_user_id: proposal.delegated_user_id,
        incident_id: proposal.incident_id,
        tool_name: proposal.tool_name,
        arguments: proposal.arguments as Record<string, unknown>,
        evidence_count: new Set(proposal.evidence_refs.map((r) => r.evidence_id)).size,
        provider,
        model,
      },
      context: {
        incident_id: this.config.incident_id,
        authority_level: this.config.authority_level,
        approved_models: this.config.approved_models.map(([p, m]) => [p, m] as const),
        tools: Object.fromEntries(
          Object.entries(this.tools).map(([name, t]) => [
            name,
            { risk_tier: t.risk_tier, allowed_arguments: [...t.allowed_arguments] },
          ]),
        ),
        limits: {
          calls_made: this.callsMade,
          max_calls: limits.max_calls,
          cost_used_usd: this.costUsedUsd,
          max_cost_usd: limits.max_cost_usd,
          elapsed_seconds: Math.max(0, (this.monotonicMs() - this.startedMs) / 1000),
          max_elapsed_seconds: limits.max_elapsed_seconds,
        },
        approval: { present, valid },
        protected_assets: {
          user_ids: [...this.config.protected_assets.user_ids],
          endpoint_ids: [...this.config.protected_assets.endpoint_ids],
          indicators: [...this.config.protected_assets.indicators],
        },
        degraded: false,
      },
    };
  }

  /** Ask the policy; on failure record it and return null (fail closed) unless degraded reads may continue. */
  private async decide(proposal: ActionProposal, stateChanging: boolean): Promise<PolicyDecision | null> {
    let engineDecision: EngineDecision;
    try {
      engineDecision = await this.engine.decide(markGatewayPolicyInput(this.policyInput(proposal)));
    } catch (error) {
      const message = errorMessage(error);
      this.record(proposal.proposal_id, 'policy_unavailable', {
        error: redactText(message, this.patterns).slice(0, 1000),
        state_changing: stateChanging,
      });
      if (stateChanging || !this.config.degraded_read_only || !Object.hasOwn(this.tools, proposal.tool_name))
        return null;
      this.record(proposal.proposal_id, 'degraded_read_only_continuation', {});
      engineDecision = {
        outcome: 'allow_with_obligations',
        reason_codes: ['degraded_read_only'],
        obligations: [{ name: 'redact_secrets', parameters: { patterns: [...this.config.canary_patterns] } }],
        risk_tier: 'read_only',
        policy_version: 'degraded',
        determining_policies: [],
      };
    }
    let decision: PolicyDecision;
    try {
      const input = {
        proposal_id: proposal.proposal_id,
        outcome: engineDecision.outcome,
        reason_codes: engineDecision.reason_codes,
        obligations: engineDecision.obligations,
        risk_tier: engineDecision.risk_tier,
        policy_version: engineDecision.policy_version,
        explanation: `${engineDecision.outcome}: ${engineDecision.reason_codes.join(', ')}`.slice(0, 2000),
        decided_at: this.now().toISOString(),
      };
      decision = fastPolicyDecision(input) ?? parseContract('PolicyDecision', PolicyDecision, input);
    } catch (error) {
      // An answer that breaks the decision contract is an engine failure too.
      this.record(proposal.proposal_id, 'policy_unavailable', {
        error: `invalid policy decision: ${errorMessage(error)}`.slice(0, 1000),
        state_changing: stateChanging,
      });
      return null;
    }
    this.decisionMap.set(proposal.proposal_id, decision);
    this.record(proposal.proposal_id, 'policy_decision', {
      outcome: decision.outcome,
      reasons: [...decision.reason_codes],
      version: decision.policy_version,
      digest: this.engine.digest,
      risk_tier: decision.risk_tier,
      policies: engineDecision.determining_policies,
    });
    return decision;
  }

  private fulfil(proposal: ActionProposal, obligation: Obligation): boolean {
    switch (obligation.name) {
      case 'redact_secrets':
        // Applied to the output after execution, with the gateway's configured patterns.
        return true;
      case 'record_reversal_plan':
        this.record(proposal.proposal_id, 'reversal_plan', {
          tool: proposal.tool_name,
          plan: 'simulated restore from receipt prior_state',
        });
        return true;
      case 'notify_incident_owner': {
        const channel = obligation.parameters.channel;
        this.record(proposal.proposal_id, 'notification', {
          channel: typeof channel === 'string' ? channel : 'simulated',
          incident: this.config.incident_id,
        });
        return true;
      }
      default:
        return false;
    }
  }

  private record(proposalId: string | null, kind: string, detail: Record<string, unknown>): void {
    const input = {
      proposal_id: proposalId ?? '00000000-0000-4000-8000-000000000000',
      kind,
      at: this.now().toISOString(),
      detail,
    };
    // The fast path checks what zod would and returns the same event (contracts/fast-parse.ts); else zod reports.
    const event = fastGatewayEvent(input) ?? parseContract('GatewayEvent', GatewayEvent, input);
    this.eventList.push(event);
    this.onEvent?.(event);
  }

  private result(
    proposal: ActionProposal,
    status: ExecutionStatus,
    outcome: DecisionOutcome | null,
    reasonCodes: readonly string[],
    error: string | null = null,
    payload: { output?: Record<string, unknown>; receipt?: Record<string, unknown> } = {},
  ): ProposalResult {
    const input = {
      proposal_id: proposal.proposal_id,
      tool_name: proposal.tool_name,
      status,
      outcome,
      reason_codes: [...reasonCodes],
      output: payload.output ?? null,
      receipt: payload.receipt ?? null,
      error: error === null ? null : redactText(error, this.patterns),
      controlled: true,
    };
    return fastProposalResult(input) ?? rememberProposalResult(parseContract('ProposalResult', ProposalResult, input));
  }
}
