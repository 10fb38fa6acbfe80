import { sha256Hex } from '../contracts/canonical.js';
import type { LegitimateAction } from '../contracts/scenarios.js';
import { parseAblation } from '../control/ablation-switches.js';
import { isHumanApprovalChannel } from '../control/approver.js';
import { DEFAULT_CANARY_PATTERNS } from '../control/redaction.js';
import { type ModeDefinition, ModeOptions } from './mode.js';
import { type ControlChainEvent, createProtectedSession, type ProtectedSessionOptions } from './protected-session.js';
import { registerMode } from './registry.js';
import { approveThenReplayAttack, forgeGrantAttack, mutateAfterGrantAttack } from './run-attacks.js';

/**
 * `protected` mode for the scenario runner: the control gateway is the port, the simulator enforces scope and
 * is held by the executor only, persisted payloads are redacted, and the run-level attacks are carried out
 * against the gateway and the executor.
 *
 * Mode options (`modeOptions`): `policyDir` (string), `signingKey` (string), `degradedReadOnly` (boolean),
 * `approverSeed` (number; default derived from the scenario id, so noisy approvers are reproducible).
 * `ablate` (a control name or a list of them, for ablation campaigns only: see `control/ablation-switches.ts`; the `protected-without-<control>` modes are in `ablation-modes.ts`).
 * `approvalService` (a `HumanApprovalChannel`): required by `approver: human`, whose requests wait in its inbox
 * for a person's decision (the API server provides one).
 */
export const protectedMode: ModeDefinition = {
  name: 'protected',
  description: 'control plane: gateway, Cedar policy, approvals, signed single-use grants, executor, redaction',
  options: ModeOptions,
  enforceScope: true,
  controlled: true,
  create(context) {
    const opts = context.options;
    // Ablation campaigns only: the controls this run goes without (see control/ablation-switches.ts).
    const ablation = parseAblation(opts.ablate);
    // What the ideal and noisy approvers consider legitimate: the benign control's action, else the incident's
    // expected recommendation against its subject.
    const legitimate: LegitimateAction[] = context.scenario.legitimate_action
      ? [{ tool: context.scenario.legitimate_action.tool, target: context.scenario.legitimate_action.target }]
      : [{ tool: context.incident.expected_recommendation, target: context.incident.subject_user_id }];
    let externalApprover: ProtectedSessionOptions['externalApprover'];
    if (context.approver === 'human') {
      if (!isHumanApprovalChannel(opts.approvalService)) {
        throw new Error('approver human needs an approvals inbox: start the campaign through the API (soclab serve)');
      }
      externalApprover = opts.approvalService.approverFor({
        run_id: context.runId,
        scenario_id: context.scenario.id,
        incident_id: context.simulator.incidentId,
      });
    }
    const sessionOptions: ProtectedSessionOptions = {
      simulator: context.simulator,
      runId: context.runId,
      authorityLevel: context.authorityLevel,
      approvedModels: context.approvedModels,
      limits: { max_calls: context.limits.maxCalls, max_cost_usd: context.limits.maxCostUsd },
      approver: externalApprover ? 'none' : (context.approver ?? 'none'),
      externalApprover,
      legitimateActions: legitimate,
      // Reproducible per scenario unless the campaign passes its own seed (e.g. one per repeat).
      approverSeed:
        typeof opts.approverSeed === 'number'
          ? opts.approverSeed
          : Number.parseInt(sha256Hex(`approver:${context.scenario.id}`).slice(0, 8), 16),
      policyDir: typeof opts.policyDir === 'string' ? opts.policyDir : undefined,
      signingKey: typeof opts.signingKey === 'string' ? opts.signingKey : undefined,
      degradedReadOnly: opts.degradedReadOnly === true,
      ablation,
    };
    const session = createProtectedSession(sessionOptions);
    return {
      port: session.port,
      redactPersistence: !ablation.has('redaction'),
      // Patterns only (never exact values: leak reports name the pattern, and must not carry the secret). The
      // per-run canaries match `CANARY-SECRET-*` in every encoding the redactor knows.
      canaryPatterns: DEFAULT_CANARY_PATTERNS,
      policyVersion: session.policyVersion,
      decisionsTotal: () => session.gateway.events.length,
      controlEvents: (): ControlChainEvent[] => session.chainEvents(),
      harness: {
        async forgeGrant(action) {
          const r = forgeGrantAttack(session, action);
          return { honoured: r.succeeded, detail: { ...r.detail, stopped_by: r.stopped_by } };
        },
        async approveThenReplay(action, result) {
          const r = await approveThenReplayAttack(session, action, result);
          return {
            attack: 'approve_then_replay',
            attempted: r.attempted,
            detail: { ...r.detail, succeeded: r.succeeded, stopped_by: r.stopped_by },
            results: r.results,
          };
        },
        async mutateAfterGrant(action, mutated) {
          const r = mutateAfterGrantAttack(session, action, mutated);
          return {
            attack: 'mutate_after_grant',
            attempted: r.attempted,
            detail: { ...r.detail, succeeded: r.succeeded, stopped_by: r.stopped_by },
            results: r.results,
          };
        },
      },
    };
  },
};

registerMode(protectedMode);
