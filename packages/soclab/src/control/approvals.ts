import { ApprovalRecord, approvalValidAt, PendingApproval } from '../contracts/approvals.js';
import { newUuid, parseContract } from '../contracts/common.js';
import type { ApprovalDecision } from '../contracts/enums.js';
import { fastPendingApproval } from '../contracts/fast-parse.js';
import { foldIdentifier } from '../contracts/identity.js';
import type { ActionProposal } from '../contracts/proposals.js';
import { reproducibleNow } from '../contracts/reproducible.js';
import { proposalHash } from './grants.js';

/** Default lifetime of an approval decision. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 600;

export class ApprovalNotFoundError extends Error {
  override name = 'ApprovalNotFoundError';
}

/** The identity that asked for an action tried to approve it. The pending request stays open. */
/**
 * Whether an approver is the proposal's own agent or delegated user. Identities are compared after one
 * normalisation, the simulator directory's (NFKC, lookalike letters to ASCII, case fold): a directory that treats
 * `Analyst-1`, `ａｎａｌｙｓｔ-1` and `аnalyst-1` (Cyrillic а) as `analyst-1` must not let them approve its actions.
 */
export function isRequester(approverId: string, proposal: { agent_id: string; delegated_user_id: string }): boolean {
  const approver = foldIdentifier(approverId.trim());
  return approver === foldIdentifier(proposal.agent_id) || approver === foldIdentifier(proposal.delegated_user_id);
}

export class SelfApprovalError extends Error {
  override name = 'SelfApprovalError';
  constructor() {
    super('the requesting identity cannot approve its own action');
  }
}

export interface ApprovalServiceOptions {
  ttlSeconds?: number;
  now?: () => Date;
}

interface StoredRecord {
  record: ApprovalRecord;
  /** Hash of the exact proposal the approver saw. */
  proposalHash: string;
}

/**
 * The human approval flow (in memory). A request is bound to the exact proposal: approving it authorizes that
 * proposal id with those arguments, once, until the approval expires.
 *
 * @example
 *   const pending = approvals.request(proposal, ['approval_required_high_impact']);
 *   approvals.decide(pending.approval_id, 'soc-lead', 'approved', 'confirmed with the account owner');
 *   approvals.validFor(proposal); // the record, until consumed or expired
 */
export class ApprovalService {
  readonly ttlSeconds: number;
  private readonly now: () => Date;
  private readonly pendingById = new Map<string, { pending: PendingApproval; proposalHash: string }>();
  private readonly records = new Map<string, StoredRecord>();
  private readonly consumed = new Set<string>();

  constructor(options: ApprovalServiceOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
    if (!(this.ttlSeconds > 0)) throw new RangeError('approval ttl must be positive');
    this.now = options.now ?? reproducibleNow;
  }

  /** Open a request (or return the one already pending for this exact proposal). */
  request(proposal: ActionProposal, reasonCodes: readonly string[]): PendingApproval {
    const hash = proposalHash(proposal);
    for (const entry of this.pendingById.values()) {
      if (entry.pending.proposal.proposal_id === proposal.proposal_id && entry.proposalHash === hash) {
        return entry.pending;
      }
    }
    const input = {
      approval_id: newUuid(),
      proposal,
      requested_at: this.now().toISOString(),
      reason_codes: [...reasonCodes],
    };
    // A proposal the orchestrator parsed is not parsed again (contracts/fast-parse.ts); any other is.
    const pending = fastPendingApproval(input) ?? parseContract('PendingApproval', PendingApproval, input);
    this.pendingById.set(pending.approval_id, { pending, proposalHash: hash });
    return pending;
  }

  /** Requests waiting for a human, oldest first. */
  pending(): PendingApproval[] {
    return [...this.pendingById.values()].map((e) => e.pending);
  }

  /** The pending request for a proposal id, if any. */
  pendingFor(proposalId: string): PendingApproval | undefined {
    for (const entry of this.pendingById.values()) {
      if (entry.pending.proposal.proposal_id === proposalId) return entry.pending;
    }
    return undefined;
  }

  /**
   * Record a human decision. Unknown or already-decided ids throw `ApprovalNotFoundError`; the proposal's own agent
   * or delegated user throws `SelfApprovalError` and leaves the request pending.
   */
  decide(approvalId: string, approverId: string, decision: ApprovalDecision, reason: string): ApprovalRecord {
    const entry = this.pendingById.get(approvalId);
    if (!entry) throw new ApprovalNotFoundError(`no pending approval ${approvalId}`);
    const proposal = entry.pending.proposal;
    const approver = approverId.trim();
    if (isRequester(approver, proposal)) throw new SelfApprovalError();
    const decidedAt = this.now();
    const record = parseContract('ApprovalRecord', ApprovalRecord, {
      approval_id: approvalId,
      proposal_id: proposal.proposal_id,
      approver_id: approver,
      decision,
      reason,
      decided_at: decidedAt.toISOString(),
      expires_at: new Date(decidedAt.getTime() + this.ttlSeconds * 1000).toISOString(),
    });
    this.pendingById.delete(approvalId);
    this.records.set(approvalId, { record, proposalHash: entry.proposalHash });
    return record;
  }

  /** An unconsumed, approved, unexpired record for exactly this proposal (same id and same hash), else null. */
  validFor(proposal: ActionProposal, at: Date = this.now()): ApprovalRecord | null {
    const hash = proposalHash(proposal);
    for (const [id, stored] of this.records) {
      if (this.consumed.has(id)) continue;
      if (stored.record.proposal_id !== proposal.proposal_id || stored.proposalHash !== hash) continue;
      if (approvalValidAt(stored.record, at)) return stored.record;
    }
    return null;
  }

  /** The latest decision recorded for a proposal id (consumed or not). */
  recordFor(proposalId: string): ApprovalRecord | undefined {
    let found: ApprovalRecord | undefined;
    for (const stored of this.records.values()) if (stored.record.proposal_id === proposalId) found = stored.record;
    return found;
  }

  /** Mark an approval used; it can never authorize anything again. */
  consume(approvalId: string): void {
    this.consumed.add(approvalId);
  }

  isConsumed(approvalId: string): boolean {
    return this.consumed.has(approvalId);
  }
}
