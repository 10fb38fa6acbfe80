import type { StoredAuditEvent } from '../contracts/events.js';

/**
 * A readable log of what the control plane did in a run, built from the run's chain (`gateway.*` and
 * `executor.refusal` events): one line per policy decision with its reason codes and deciding policies, and the
 * approvals, grants, obligations and refusals around it. Used by `soclab investigate --mode protected`.
 */
export function controlDecisionLines(events: readonly StoredAuditEvent[]): string[] {
  const tools = new Map<string, string>();
  const lines: string[] = [];
  let index = 0;
  for (const event of events) {
    const payload = event.payload as { proposal_id?: string; kind?: string; detail?: Record<string, unknown> };
    const detail = payload.detail ?? {};
    const id = payload.proposal_id ?? '';
    const seq = `#${event.sequence}`.padEnd(5);
    if (event.event_type === 'executor.execution') {
      const x = event.payload as {
        tool?: string;
        state_changing?: boolean;
        receipt?: { execution_id?: string } | null;
      };
      if (x.state_changing)
        lines.push(`${seq}   executor ran ${x.tool ?? '?'} (receipt ${x.receipt?.execution_id ?? '?'}, simulation)`);
      continue;
    }
    if (event.event_type === 'executor.refusal') {
      const r = event.payload as { tool?: string; code?: string };
      lines.push(`${seq} executor refused ${r.tool ?? '?'}: ${r.code ?? '?'}`);
      continue;
    }
    switch (payload.kind) {
      case 'proposal_received':
        tools.set(id, String(detail.tool ?? '?'));
        break;
      case 'policy_decision': {
        index += 1;
        const reasons = Array.isArray(detail.reasons) ? detail.reasons.join(', ') : '';
        const policies =
          Array.isArray(detail.policies) && detail.policies.length > 0 ? ` by ${detail.policies.join(', ')}` : '';
        lines.push(
          `${seq} decision ${index}: ${(tools.get(id) ?? '?').padEnd(26)} ${String(detail.outcome).padEnd(22)} [${reasons}]${policies}`,
        );
        break;
      }
      case 'policy_unavailable':
        lines.push(
          `${seq} policy unavailable for ${tools.get(id) ?? '?'}: failed closed (${String(detail.error ?? '')})`,
        );
        break;
      case 'approval_requested':
        lines.push(`${seq}   approval requested ${String(detail.approval_id)}`);
        break;
      case 'approval_decided':
        lines.push(`${seq}   ${String(detail.approver)} ${String(detail.decision)} ${String(detail.approval_id)}`);
        break;
      case 'grant_issued':
        lines.push(`${seq}   grant ${String(detail.grant_id)} issued (expires ${String(detail.expires_at)})`);
        break;
      case 'reversal_plan':
      case 'notification':
        lines.push(`${seq}   obligation ${payload.kind}: ${JSON.stringify(detail)}`);
        break;
      case 'obligation_failed':
      case 'approval_binding_failed':
      case 'execution_refused':
        lines.push(`${seq}   failed closed: ${payload.kind}${detail.code ? ` (${String(detail.code)})` : ''}`);
        break;
      case 'unapproved_model_turn':
        lines.push(`${seq} unapproved model answered: ${String(detail.provider)}/${String(detail.model)}`);
        break;
      default:
        break;
    }
  }
  return lines;
}

/** One policy decision as recorded on the chain (for machine-readable output). */
export interface RecordedDecision {
  sequence: number;
  proposal_id: string;
  tool: string;
  outcome: string;
  reason_codes: string[];
  policies: string[];
  policy_version: string;
}

/** Every `gateway.policy_decision` of a run's chain, with the tool it was about. */
export function controlDecisions(events: readonly StoredAuditEvent[]): RecordedDecision[] {
  const tools = new Map<string, string>();
  const out: RecordedDecision[] = [];
  for (const event of events) {
    const payload = event.payload as { proposal_id?: string; kind?: string; detail?: Record<string, unknown> };
    const detail = payload.detail ?? {};
    const id = payload.proposal_id ?? '';
    if (payload.kind === 'proposal_received') tools.set(id, String(detail.tool ?? '?'));
    if (payload.kind !== 'policy_decision') continue;
    out.push({
      sequence: event.sequence,
      proposal_id: id,
      tool: tools.get(id) ?? '?',
      outcome: String(detail.outcome),
      reason_codes: Array.isArray(detail.reasons) ? detail.reasons.map(String) : [],
      policies: Array.isArray(detail.policies) ? detail.policies.map(String) : [],
      policy_version: String(detail.version ?? ''),
    });
  }
  return out;
}
