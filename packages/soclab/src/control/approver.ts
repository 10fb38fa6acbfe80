import { seededRandom } from '@aeh/harness/stats';
import type { PendingApproval } from '../contracts/approvals.js';
import type { ApprovalDecision } from '../contracts/enums.js';
import type { ActionProposal } from '../contracts/proposals.js';
import type { LegitimateAction } from '../contracts/scenarios.js';

/**
 * Simulated human approvers for campaigns, to show how much of protected mode's safety rests on the human:
 * - `none` (default): requests stay pending, as in the reference lab;
 * - `ideal`: approves exactly the scenario's legitimate actions and rejects everything else;
 * - `rubber_stamp`: approves everything (over-trust);
 * - `noisy:p`: approves legitimate actions, and wrong ones with probability p (seeded, reproducible).
 */
export type ApproverMode =
  | { kind: 'none' }
  | { kind: 'ideal' }
  | { kind: 'rubber_stamp' }
  | { kind: 'noisy'; probability: number };

export interface ApproverVerdict {
  approver_id: string;
  decision: ApprovalDecision;
  reason: string;
}

export interface SimulatedApprover {
  readonly mode: ApproverMode;
  /** A verdict, or null to leave the request pending. */
  review(pending: PendingApproval): ApproverVerdict | null;
}

/**
 * An approver outside the lab's simulation — a person answering through the API's approvals inbox. It may take
 * time to answer (the run waits); null means no decision in time, and the request stays pending.
 */
export interface ExternalApprover {
  /** Recorded as the run's approver mode (e.g. `human`). */
  readonly name: string;
  review(pending: PendingApproval): Promise<ApproverVerdict | null>;
}

/** Where the run's facts come from when a human approver is asked (for the inbox). */
export interface HumanReviewContext {
  readonly run_id: string;
  readonly scenario_id: string;
  readonly incident_id: string;
  /** The seeded scope the run asks from, when the campaign is seeded (a restart resumes the run from it). */
  readonly scope?: string;
}

/**
 * The `approver: human` service a campaign hands to protected mode (`modeOptions.approvalService`): it gives each
 * run its approver, whose requests appear in an inbox until a person decides or the wait times out.
 */
export interface HumanApprovalChannel {
  approverFor(context: HumanReviewContext): ExternalApprover;
}

/** True for an object usable as `modeOptions.approvalService`. */
export function isHumanApprovalChannel(value: unknown): value is HumanApprovalChannel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { approverFor?: unknown }).approverFor === 'function'
  );
}

/** Parse `none`, `ideal`, `rubber_stamp` (or `rubber-stamp`) or `noisy:<p>` with 0 <= p <= 1. */
export function parseApproverMode(text: string): ApproverMode {
  const value = text.trim().toLowerCase();
  if (value === 'none' || value === '') return { kind: 'none' };
  if (value === 'ideal') return { kind: 'ideal' };
  if (value === 'rubber_stamp' || value === 'rubber-stamp') return { kind: 'rubber_stamp' };
  const noisy = /^noisy:(\d*\.?\d+)$/.exec(value);
  if (noisy) {
    const probability = Number(noisy[1]);
    if (probability >= 0 && probability <= 1) return { kind: 'noisy', probability };
  }
  throw new RangeError(`unknown approver '${text}': use none, ideal, rubber_stamp or noisy:<p> with p in [0, 1]`);
}

export function formatApproverMode(mode: ApproverMode): string {
  return mode.kind === 'noisy' ? `noisy:${mode.probability}` : mode.kind;
}

const TARGET_ARGUMENT: Readonly<Record<string, string>> = {
  isolate_endpoint: 'endpoint_id',
  block_indicator: 'indicator',
};

/** The proposal's target: `endpoint_id` for isolation, `indicator` for blocks, else `user_id`. */
export function proposalTarget(proposal: Pick<ActionProposal, 'tool_name' | 'arguments'>): unknown {
  const key = TARGET_ARGUMENT[proposal.tool_name] ?? 'user_id';
  return proposal.arguments[key];
}

/** True when the proposal is exactly one of the legitimate actions (same tool, same target, no other arguments). */
export function isLegitimate(proposal: ActionProposal, legitimate: readonly LegitimateAction[]): boolean {
  const target = proposalTarget(proposal);
  const extra = Object.keys(proposal.arguments).length !== 1;
  return !extra && legitimate.some((a) => a.tool === proposal.tool_name && a.target === target);
}

/** Build the approver for a mode. `seed` fixes the noisy approver's choices. */
export function createSimulatedApprover(
  mode: ApproverMode,
  options: { legitimate?: readonly LegitimateAction[]; seed?: number } = {},
): SimulatedApprover | null {
  if (mode.kind === 'none') return null;
  const legitimate = options.legitimate ?? [];
  const random = seededRandom(options.seed ?? 1);
  const id = `simulated-approver-${mode.kind.replace('_', '-')}`;
  return {
    mode,
    review(pending) {
      const legit = isLegitimate(pending.proposal, legitimate);
      if (mode.kind === 'rubber_stamp')
        return { approver_id: id, decision: 'approved', reason: 'approved without review' };
      if (legit) return { approver_id: id, decision: 'approved', reason: 'matches the incident response plan' };
      if (mode.kind === 'noisy' && random() < mode.probability) {
        return { approver_id: id, decision: 'approved', reason: 'approved in error (noisy approver)' };
      }
      return { approver_id: id, decision: 'rejected', reason: 'not a legitimate action for this incident' };
    },
  };
}
