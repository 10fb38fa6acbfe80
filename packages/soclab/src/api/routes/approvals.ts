import { z } from 'zod';
import { ApprovalAlreadySettledError, type InboxEntry } from '../../control/approval-inbox.js';
import { ApprovalNotFoundError, SelfApprovalError } from '../../control/approvals.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../../control/redaction.js';
import { callerOf } from '../auth.js';
import { type ApiApp, type ApiContext, BEARER } from '../context.js';
import { ApiError } from '../errors.js';
import { ApprovalDecisionBody, ApprovalParams, ErrorBody, Page } from '../schemas.js';
import type { ApprovalRow } from '../store.js';

const PendingView = z.object({
  approval_id: z.string(),
  proposal_id: z.string(),
  campaign_id: z.string().nullable(),
  run_id: z.string(),
  scenario_id: z.string(),
  incident_id: z.string(),
  tool_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  rationale: z.string(),
  evidence_count: z.number().int(),
  requested_by: z.object({ agent_id: z.string(), delegated_user_id: z.string() }),
  model: z.string(),
  reason_codes: z.array(z.string()),
  requested_at: z.string(),
  deadline: z.string(),
});

const HistoryView = z.object({
  approval_id: z.string(),
  proposal_id: z.string(),
  campaign_id: z.string().nullable(),
  run_id: z.string(),
  scenario_id: z.string(),
  tool_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  reason_codes: z.array(z.string()),
  requested_at: z.string(),
  outcome: z.string(),
  /** Set for approved and rejected; null when the request lapsed or was cancelled. */
  decision: z.enum(['approved', 'rejected']).nullable(),
  approver_id: z.string().nullable(),
  reason: z.string().nullable(),
  decided_at: z.string().nullable(),
});

/** Pending requests carry text written by the model (arguments, rationale): canary-redacted, untrusted. */
function pendingView(e: InboxEntry): z.infer<typeof PendingView> {
  return redact(
    {
      approval_id: e.approval_id,
      proposal_id: e.proposal.proposal_id,
      campaign_id: e.campaign_id,
      run_id: e.run_id,
      scenario_id: e.scenario_id,
      incident_id: e.incident_id,
      tool_name: e.proposal.tool_name,
      arguments: { ...e.proposal.arguments },
      rationale: e.proposal.rationale,
      evidence_count: e.proposal.evidence_refs.length,
      requested_by: { agent_id: e.proposal.agent_id, delegated_user_id: e.proposal.delegated_user_id },
      model: `${e.proposal.provider}/${e.proposal.model}`,
      reason_codes: [...e.reason_codes],
      requested_at: e.requested_at,
      deadline: e.deadline,
    },
    DEFAULT_CANARY_PATTERNS,
  );
}

/**
 * A settled request as served. Canary-redacted as a whole: the arguments are stored redacted, but the reason is
 * the approver's free text (or the system's), served to every reader of the history.
 */
const historyView = (r: ApprovalRow): z.infer<typeof HistoryView> => redact(rawHistoryView(r), DEFAULT_CANARY_PATTERNS);

const rawHistoryView = (r: ApprovalRow): z.infer<typeof HistoryView> => ({
  approval_id: r.approval_id,
  proposal_id: r.proposal_id,
  campaign_id: r.campaign_id,
  run_id: r.run_id,
  scenario_id: r.scenario_id,
  tool_name: r.tool_name,
  arguments: r.arguments,
  reason_codes: r.reason_codes,
  requested_at: r.requested_at,
  outcome: r.outcome,
  decision: r.outcome === 'approved' || r.outcome === 'rejected' ? r.outcome : null,
  approver_id: r.approver_id,
  reason: r.reason,
  decided_at: r.decided_at,
});

/**
 * The human approvals inbox: requests raised inside `approver: human` campaign runs (each run waits for the
 * decision, up to its timeout), the decision route for approvers, and the history.
 */
export function registerApprovalRoutes(app: ApiApp, ctx: ApiContext): void {
  app.get(
    '/api/v1/approvals',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['approvals'],
        summary: 'Requests waiting for a human decision, oldest first',
        security: BEARER,
        querystring: z.strictObject({ campaign_id: z.uuid().optional() }),
        response: { 200: z.array(PendingView) },
      },
    },
    async (request) => ctx.inbox.pending({ campaign_id: request.query.campaign_id }).map(pendingView),
  );

  app.get(
    '/api/v1/approvals/history',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['approvals'],
        summary: 'Decided, lapsed and cancelled requests, newest first',
        security: BEARER,
        querystring: Page.extend({ campaign_id: z.uuid().optional() }),
        response: { 200: z.array(HistoryView) },
      },
    },
    async (request) => (await ctx.store.approvalHistory(request.query)).map(historyView),
  );

  app.post(
    '/api/v1/approvals/:approval_id/decision',
    {
      config: { permission: 'approve' },
      schema: {
        tags: ['approvals'],
        summary: 'Approve or reject a pending request (as the token holder)',
        description:
          'The approver is the authenticated identity. The agent or delegated user that asked cannot approve its ' +
          'own action (403, the request stays pending); a request is decided once (409 afterwards).',
        security: BEARER,
        params: ApprovalParams,
        body: ApprovalDecisionBody,
        response: { 200: HistoryView, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      const me = callerOf(request).name;
      const { decision, reason, approver_id } = request.body;
      if (approver_id !== undefined && approver_id !== me) {
        throw new ApiError(403, 'approver_mismatch', `approver_id must be your own identity (${me})`);
      }
      const id = request.params.approval_id;
      try {
        ctx.inbox.decide(id, me, decision, reason);
      } catch (error) {
        if (error instanceof SelfApprovalError) throw new ApiError(403, 'self_approval', error.message);
        if (error instanceof ApprovalAlreadySettledError) {
          throw new ApiError(409, 'already_decided', `approval ${id} is already ${error.outcome}`);
        }
        if (error instanceof ApprovalNotFoundError) {
          const row = await ctx.store.getApproval(id);
          if (row && row.outcome !== 'pending') {
            throw new ApiError(409, 'already_decided', `approval ${id} is already ${row.outcome}`);
          }
          throw new ApiError(404, 'not_found', `no pending approval ${id}`);
        }
        throw error;
      }
      await ctx.approvalWrites();
      const row = await ctx.store.getApproval(id);
      if (!row) throw new ApiError(500, 'internal_error', 'the decision was not recorded');
      return historyView(row);
    },
  );
}
