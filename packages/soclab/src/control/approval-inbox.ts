import type { PendingApproval } from '../contracts/approvals.js';
import { canonicalJson } from '../contracts/canonical.js';
import type { ApprovalDecision } from '../contracts/enums.js';
import type { ActionProposal } from '../contracts/proposals.js';
import { reproducibleScope } from '../contracts/reproducible.js';
import { ApprovalNotFoundError, isRequester, SelfApprovalError } from './approvals.js';
import type { ApproverVerdict, ExternalApprover, HumanApprovalChannel, HumanReviewContext } from './approver.js';
import { proposalHash } from './grants.js';
import { DEFAULT_CANARY_PATTERNS, redact } from './redaction.js';

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
  /** The seeded scope of the run that asked (campaign label/scenario/repeat/attempt), when seeded. */
  readonly scope?: string | null;
}

export type InboxOutcome = 'approved' | 'rejected' | 'expired' | 'cancelled' | 'resume_mismatch';

/**
 * The proposal as it is persisted and shown after a restart: canary-redacted (the model may have put a secret in
 * its arguments). A resumed run's proposal must give exactly this text again, and the same `proposalHash`.
 */
export function persistedProposal(proposal: ActionProposal): Record<string, unknown> {
  return redact({ ...proposal }, DEFAULT_CANARY_PATTERNS) as Record<string, unknown>;
}

/** Who is recorded as deciding when nobody did in time: the request is denied, never left to be approved later. */
export const EXPIRED_APPROVER = 'soclab:approval-expired';
/** Who is recorded as deciding when a resumed run reached another proposal than the persisted one. */
export const RESUME_MISMATCH_APPROVER = 'soclab:resume-mismatch';

/** A request an earlier server process persisted, restored at start-up so its campaign can resume. */
export interface PersistedRequest {
  /** The request as persisted (its proposal is the persisted, redacted one). */
  readonly entry: InboxEntry;
  /** `proposalHash` of the exact proposal the run asked about. */
  readonly proposal_hash: string;
  readonly outcome: 'pending' | 'approved' | 'rejected' | 'expired';
  readonly approver_id: string | null;
  readonly reason: string | null;
}

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
  /** A restored request (no run waits on it in this process) was settled: resume its campaign. Must not throw. */
  onResumable?: (campaignId: string, entry: InboxEntry) => void;
  /** A resumed run asked about another proposal than the persisted one: the decision is not applied. */
  onResumeMismatch?: (entry: InboxEntry, detail: string) => void;
}

interface Waiting {
  entry: InboxEntry;
  resolve: (verdict: ApproverVerdict | null) => void;
  timer: NodeJS.Timeout;
  /** Restored from the store: no run of this process waits on it yet. */
  dormant: boolean;
}

/** What a restored request is checked against when its resumed run asks again. */
interface Restored {
  entry: InboxEntry;
  hash: string;
  proposalText: string;
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
  /** Requests restored from the store, until their resumed run asks again. */
  private readonly restored = new Map<string, Restored>();
  /** Decisions on restored requests, handed to their resumed run (null: cancelled, no decision). */
  private readonly answers = new Map<string, ApproverVerdict | null>();
  /**
   * Requests settled in this process, for a run that asks again with the same id (a seeded campaign continued on
   * a new worker after its worker died): it gets the same answer, for the same proposal only.
   */
  private readonly finished = new Map<string, { hash: string; verdict: ApproverVerdict | null }>();
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

  /**
   * Requests an earlier server process persisted: pending ones are listed and can be decided as if their run
   * waited here (they lapse at their persisted deadline, at once when it passed while the server was down), and
   * every one is answered from its persisted decision when its resumed run asks again with the same proposal.
   */
  restore(requests: readonly PersistedRequest[]): void {
    const now = this.now().getTime();
    for (const r of requests) {
      const id = r.entry.approval_id;
      this.restored.set(id, { entry: r.entry, hash: r.proposal_hash, proposalText: canonicalJson(r.entry.proposal) });
      if (r.outcome === 'pending') {
        const ms = Math.max(0, Date.parse(r.entry.deadline) - now);
        const timer = setTimeout(() => this.settle(id, 'expired', null, null), Math.min(ms, 2 ** 31 - 1));
        timer.unref();
        this.waiting.set(id, { entry: r.entry, resolve: () => undefined, timer, dormant: true });
      } else {
        this.settled.set(id, r.outcome);
        this.answers.set(id, verdictOf(r.entry, r.outcome, r.approver_id, r.reason));
      }
    }
    // Deadlines that passed while the server was down lapse now (recorded as expired, the campaign resumes).
    for (const r of requests) {
      if (r.outcome === 'pending' && Date.parse(r.entry.deadline) <= now)
        this.settle(r.entry.approval_id, 'expired', null, null);
    }
  }

  /**
   * A resumed run asks about a restored request: the proposal it reached must be the persisted one (same hash,
   * same redacted text), else the decision is not applied and the request is denied (`resume_mismatch`).
   */
  private resumeCheck(pending: PendingApproval, restored: Restored): string | null {
    if (proposalHash(pending.proposal) !== restored.hash)
      return 'the resumed run proposed another action (hash differs)';
    if (canonicalJson(persistedProposal(pending.proposal)) !== restored.proposalText) {
      return 'the persisted proposal differs from the one the resumed run reached';
    }
    return null;
  }

  private wait(
    pending: PendingApproval,
    context: HumanReviewContext,
    campaignId: string | null,
    timeoutSeconds: number,
  ): Promise<ApproverVerdict | null> {
    const restored = this.restored.get(pending.approval_id);
    if (restored) {
      this.restored.delete(pending.approval_id);
      const mismatch = this.resumeCheck(pending, restored);
      const dormant = this.waiting.get(pending.approval_id);
      if (mismatch !== null) {
        if (dormant) {
          clearTimeout(dormant.timer);
          this.waiting.delete(pending.approval_id);
        }
        this.answers.delete(pending.approval_id);
        this.settled.set(pending.approval_id, 'resume_mismatch');
        this.options.onResumeMismatch?.(restored.entry, mismatch);
        return Promise.resolve({ approver_id: RESUME_MISMATCH_APPROVER, decision: 'rejected', reason: mismatch });
      }
      if (this.answers.has(pending.approval_id)) {
        const answer = this.answers.get(pending.approval_id) ?? null;
        this.answers.delete(pending.approval_id);
        return Promise.resolve(answer);
      }
      if (dormant) {
        // Still undecided: the resumed run waits for the same decision, until the persisted deadline.
        dormant.dormant = false;
        return new Promise((resolve) => {
          dormant.resolve = resolve;
        });
      }
    }
    const finished = this.finished.get(pending.approval_id);
    if (finished && !this.waiting.has(pending.approval_id)) {
      if (proposalHash(pending.proposal) === finished.hash) return Promise.resolve(finished.verdict);
      return Promise.resolve({
        approver_id: RESUME_MISMATCH_APPROVER,
        decision: 'rejected',
        reason: 'the run asked again about another proposal with the same request id',
      });
    }
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
      scope: context.scope ?? reproducibleScope()?.name ?? null,
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(entry.approval_id, 'expired', null, null), timeoutSeconds * 1000);
      timer.unref();
      this.waiting.set(entry.approval_id, { entry, resolve, timer, dormant: false });
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
    return this.settleWaiting(approvalId, waiting, decision, approver, reason);
  }

  /** Stop waiting on every request (of one campaign, or all): the runs go on without approval. */
  cancel(filter: { campaign_id?: string } = {}, reason = 'cancelled'): number {
    const ids = this.pending(filter).map((e) => e.approval_id);
    for (const id of ids) this.settle(id, 'cancelled', null, reason);
    return ids.length;
  }

  /**
   * A resumed campaign ended: its restored requests that were approved but never reached again by the resumed run
   * (it stopped earlier, e.g. its chain or its taped answers differed) had their approval not applied. Recorded as
   * `resume_mismatch`, so the history does not say approved for an action that never ran.
   */
  unreached(campaignId: string, detail: string): number {
    let count = 0;
    for (const [id, restored] of this.restored) {
      if (restored.entry.campaign_id !== campaignId || this.answers.get(id)?.decision !== 'approved') continue;
      this.restored.delete(id);
      this.answers.delete(id);
      this.settled.set(id, 'resume_mismatch');
      this.options.onResumeMismatch?.(restored.entry, detail);
      count += 1;
    }
    return count;
  }

  /**
   * Forget a campaign's waiting requests without settling them (the server stops; they stay pending in the store
   * and a restart restores them). The runs waiting on them are never answered: their process is going away.
   */
  suspend(campaignId: string): number {
    const ids = this.pending({ campaign_id: campaignId }).map((e) => e.approval_id);
    for (const id of ids) {
      const waiting = this.waiting.get(id);
      if (waiting) clearTimeout(waiting.timer);
      this.waiting.delete(id);
    }
    return ids.length;
  }

  private settle(
    approvalId: string,
    outcome: InboxOutcome,
    approverId: string | null,
    reason: string | null,
  ): InboxSettlement | null {
    const waiting = this.waiting.get(approvalId);
    return waiting ? this.settleWaiting(approvalId, waiting, outcome, approverId, reason) : null;
  }

  private settleWaiting(
    approvalId: string,
    waiting: Waiting,
    outcome: InboxOutcome,
    approverId: string | null,
    reason: string | null,
  ): InboxSettlement {
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
    const verdict = verdictOf(waiting.entry, outcome, approverId, reason);
    if (!waiting.dormant) this.finished.set(approvalId, { hash: proposalHash(waiting.entry.proposal), verdict });
    if (waiting.dormant) {
      // No run of this process waits: keep the answer for the resumed run, and have its campaign resumed.
      this.answers.set(approvalId, verdict);
      if (waiting.entry.campaign_id !== null && outcome !== 'cancelled') {
        this.options.onResumable?.(waiting.entry.campaign_id, waiting.entry);
      }
    } else {
      waiting.resolve(verdict);
    }
    return settlement;
  }
}

/**
 * What the waiting run is told: the person's decision; a lapsed request is denied (recorded in the run's chain as
 * decided by `soclab:approval-expired`, so the action never runs on a late approval); a cancelled one gets no answer.
 */
function verdictOf(
  entry: InboxEntry,
  outcome: InboxOutcome,
  approverId: string | null,
  reason: string | null,
): ApproverVerdict | null {
  if (outcome === 'approved' || outcome === 'rejected') {
    // A person's decision always names them (decide() requires it); a stored one that does not is refused.
    if (approverId === null) throw new Error(`approval ${entry.approval_id} is ${outcome} but names no approver`);
    return { approver_id: approverId, decision: outcome, reason: reason ?? '' };
  }
  if (outcome === 'expired') {
    return { approver_id: EXPIRED_APPROVER, decision: 'rejected', reason: `no decision before ${entry.deadline}` };
  }
  return null;
}
