/** Human approval records and the requests waiting for one. */
import { z } from 'zod';
import { bounded, NonEmpty, newUuid, strictModel, TimestampNow, UtcTimestamp, Uuid } from './common.js';
import { ApprovalDecision } from './enums.js';
import { ActionProposal } from './proposals.js';

export const ApprovalRecord = z
  .strictObject({
    approval_id: Uuid.default(newUuid),
    proposal_id: Uuid,
    approver_id: NonEmpty,
    decision: ApprovalDecision,
    reason: bounded(2000),
    decided_at: TimestampNow,
    expires_at: UtcTimestamp,
  })
  .superRefine((a, ctx) => {
    if (Date.parse(a.expires_at) <= Date.parse(a.decided_at)) {
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be after decided_at' });
    }
  })
  .readonly();
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** True iff the record approves and has not expired at `at`. */
export function approvalValidAt(record: ApprovalRecord, at: Date = new Date()): boolean {
  return record.decision === 'approved' && at.getTime() < Date.parse(record.expires_at);
}

export const PendingApproval = strictModel({
  approval_id: Uuid.default(newUuid),
  proposal: ActionProposal,
  requested_at: TimestampNow,
  reason_codes: z.array(NonEmpty).readonly().default([]),
});
export type PendingApproval = z.infer<typeof PendingApproval>;
