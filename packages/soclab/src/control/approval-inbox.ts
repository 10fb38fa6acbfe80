import type { ApprovalDecision } from '../contracts/enums.js';
import type { ActionProposal, PendingApproval } from '../contracts/models.js';
import { ApprovalNotFoundError, isRequester, SelfApprovalError } from './approvals.js';
import type { ApproverVerdict, ExternalApprover, HumanApprovalChannel, HumanReviewContext } from './approver.js';

/** Default time a run waits for a person's decision before the request lapses (it then stays unapproved). */
export const DEFAULT_HUMAN_APPROVAL_TIMEOUT_SECONDS = 240;

/** The request was already approved, rejected, expired or cancelled (API 409). */
export class ApprovalAlreadySettledError extends Error {
  override name = 'ApprovalAlreadySettledError';
  constructor(
    readonly approvalId: string,
    readonly outcome: InboxOutcome,
  ) {
    super(`approval ${approvalId} is already ${outcome}`);
  }
}

/** One request waiting for a person. */
export interface InboxEntry {
  readonly approval_id: string;
  readonly campaign_id: string | null;
  readonly run_id: string;
  readonly scenario_id: string;
  readonly incident_id: string;
  readonly proposal: ActionProposal;
  readonly reason_codes: readonly string[];
  readonly requested_at: string;
  /** When the run stops waiting. */
  readonly deadline: string;
}

export type InboxOutcome = 'approved' | 'rejected' | 'expired' | 'cancelled';

/** How a request ended. */
export interface InboxSettlement {
  readonly entry: InboxEntry;
  readonly outcome: InboxOutcome;
  readonly approver_id: string | null;
  readonly reason: string | null;
  readonly decided_at: string;
}

export interface ApprovalInboxOptions {
  timeoutSeconds?: number;
  now?: () => Date;
  /** Called when a request arrives (e.g. to persist it). Must not throw. */
  onRequested?: (entry: InboxEntry) => void;
  /** Called once per request when it is decided, lapses or is cancelled. Must not throw. */
  onSettled?: (settlement: InboxSettlement) => void;
}

interface Waiting {
  entry: InboxEntry;
  resolve: (verdict: ApproverVerdict | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * The human approvals inbox shared by every campaign run of a server: a run's gateway routes `require_approval`
 * here (through `channel(...).approverFor(run)`), the run waits, and a person decides through the API. The same
 * rules as the approval service apply: the requesting agent or delegated user cannot approve (the request stays
 * open), and a request is settled once.
 *
 * @example
 *   const inbox = new ApprovalInbox({ timeoutSeconds: 120 });
 *   await runCampaign({ mode: 'protected', approver: 'human' }, { approvalService: inbox.channel({ campaign_id }) });
 *   // elsewhere, for a person: inbox.decide(inbox.pending()[0].approval_id, 'soc-lead', 'approved', 'checked');
 */
export class ApprovalInbox {
  readonly timeoutSeconds: number;
  private readonly now: () => Date;
  private readonly waiting = new Map<string, Waiting>();
  private readonly settled = new Map<string, InboxOutcome>();
  private readonly options: ApprovalInboxOptions;

  constructor(options: ApprovalInboxOptions = {}) {
    this.timeoutSeconds = options.timeoutSeconds ?? DEFAULT_HUMAN_APPROVAL_TIMEOUT_SECONDS;
    if (!(this.timeoutSeconds > 0)) throw new RangeError('approval timeout must be positive');
    this.now = options.now ?? (() => new Date());
    this.options = options;
  }

  /** The `approvalService` to hand to a campaign: each run gets an approver that waits in this inbox. */
  channel(meta: { campaign_id?: string | null; timeoutSeconds?: number } = {}): HumanApprovalChannel {
    const timeoutSeconds = meta.timeoutSeconds ?? this.timeoutSeconds;
    return {
      approverFor: (context: HumanReviewContext): ExternalApprover => ({
        name: 'human',
        review: (pending) => this.wait(pending, context, meta.campaign_id ?? null, timeoutSeconds),
      }),
    };
  }

  private wait(
    pending: PendingApproval,
    context: HumanReviewContext,
    campaignId: string | null,
    timeoutSeconds: number,
  ): Promise<ApproverVerdict | null> {
    const existing = this.waiting.get(pending.approval_id);
    if (existing) {
      // The same request asked again: wait for the same decision.
      return new Promise((resolve) => {
        const previous = existing.resolve;
        existing.resolve = (v) => {
          previous(v);
          resolve(v);
        };
      });
    }
    const requestedAt = this.now();
    const entry: InboxEntry = Object.freeze({
      approval_id: pending.approval_id,
      campaign_id: campaignId,
      run_id: context.run_id,
      scenario_id: context.scenario_id,
      incident_id: context.incident_id,
      proposal: pending.proposal,
      reason_codes: [...pending.reason_codes],
      requested_at: requestedAt.toISOString(),
      deadline: new Date(requestedAt.getTime() + timeoutSeconds * 1000).toISOString(),
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(entry.approval_id, 'expired', null, null), timeoutSeconds * 1000);
      timer.unref();
      this.waiting.set(entry.approval_id, { entry, resolve, timer });
      this.options.onRequested?.(entry);
    });
  }

  /** Requests waiting for a decision, oldest first (optionally one campaign's). */
  pending(filter: { campaign_id?: string } = {}): InboxEntry[] {
    const all = [...this.waiting.values()].map((w) => w.entry);
    return filter.campaign_id === undefined ? all : all.filter((e) => e.campaign_id === filter.campaign_id);
  }

  get(approvalId: string): InboxEntry | undefined {
    return this.waiting.get(approvalId)?.entry;
  }

  /** How a request ended, if it did (in this process). */
  outcomeOf(approvalId: string): InboxOutcome | undefined {
    return this.settled.get(approvalId);
  }

  /**
   * A person's decision. Throws `SelfApprovalError` when the approver is the proposal's agent or delegated user
   * (the request stays open), `ApprovalAlreadySettledError` when it was already settled here, and
   * `ApprovalNotFoundError` when no such request is waiting.
   */
  decide(approvalId: string, approverId: string, decision: ApprovalDecision, reason: string): InboxSettlement {
    const waiting = this.waiting.get(approvalId);
    if (!waiting) {
      const outcome = this.settled.get(approvalId);
      if (outcome) throw new ApprovalAlreadySettledError(approvalId, outcome);
      throw new ApprovalNotFoundError(`no pending approval ${approvalId}`);
    }
    const approver = approverId.trim();
    if (approver === '') throw new RangeError('approver id must not be empty');
    const proposal = waiting.entry.proposal;
    if (isRequester(approver, proposal)) throw new SelfApprovalError();
    return this.settle(approvalId, decision, approver, reason)!;
  }

  /** Stop waiting on every request (of one campaign, or all): the runs go on without approval. */
  cancel(filter: { campaign_id?: string } = {}, reason = 'cancelled'): number {
    const ids = this.pending(filter).map((e) => e.approval_id);
    for (const id of ids) this.settle(id, 'cancelled', null, reason);
    return ids.length;
  }

  private settle(
    approvalId: string,
    outcome: InboxOutcome,
    approverId: string | null,
    reason: string | null,
  ): InboxSettlement | null {
    const waiting = this.waiting.get(approvalId);
    if (!waiting) return null;
    clearTimeout(waiting.timer);
    this.waiting.delete(approvalId);
    this.settled.set(approvalId, outcome);
    const settlement: InboxSettlement = {
      entry: waiting.entry,
      outcome,
      approver_id: approverId,
      reason,
      decided_at: this.now().toISOString(),
    };
    this.options.onSettled?.(settlement);
    waiting.resolve(
      outcome === 'approved' || outcome === 'rejected'
        ? { approver_id: approverId!, decision: outcome, reason: reason ?? '' }
        : null,
    );
    return settlement;
  }
}
