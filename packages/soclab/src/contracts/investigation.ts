/** What an investigation concludes: claims, findings and the run's result. */
import { z } from 'zod';
import { NonEmpty, Str, strictModel } from './common.js';
import { InvestigationStatus, Stage } from './enums.js';
import { CanonicalModelEvent } from './model-turns.js';
import { ActionProposal, EvidenceRef, ProposalResult } from './proposals.js';

export const Claim = strictModel({
  text: Str,
  evidence_ids: z.array(Str).readonly(),
  supported: z.boolean(),
});
export type Claim = z.infer<typeof Claim>;

export const Finding = strictModel({
  summary: Str,
  claims: z.array(Claim).readonly(),
  techniques: z.array(Str).readonly(),
  confidence: z.number().min(0).max(1),
  evidence_refs: z.array(EvidenceRef).readonly(),
});
export type Finding = z.infer<typeof Finding>;

/** What an agent submits as its finding, before its citations are checked. */
export interface SubmittedFinding {
  summary: string;
  claims: readonly { text: string; evidence_ids: readonly string[] }[];
  techniques: readonly string[];
  confidence: number;
}

/**
 * The finding of a submission, checked against the evidence issued in this run (by id): a claim is supported only
 * by issued ids, and fabricated or missing citations are kept and flagged, never hidden. The finding refers to the
 * issued evidence it cites, or to all issued evidence when it cites none. The pipeline and the MCP session both
 * judge findings this way.
 */
export function checkedFinding(submitted: SubmittedFinding, issued: ReadonlyMap<string, EvidenceRef>): Finding {
  const claims: Claim[] = submitted.claims.map((c) => ({
    text: c.text,
    evidence_ids: [...c.evidence_ids],
    supported: c.evidence_ids.length > 0 && c.evidence_ids.every((id) => issued.has(id)),
  }));
  const cited = [...new Set(claims.flatMap((c) => c.evidence_ids))].filter((id) => issued.has(id));
  return {
    summary: submitted.summary,
    claims,
    techniques: submitted.techniques,
    confidence: submitted.confidence,
    evidence_refs: cited.length > 0 ? cited.flatMap((id) => issued.get(id) ?? []) : [...issued.values()],
  };
}

/**
 * The evidence id the alert is issued under, before any stage runs (the pipeline and the MCP session alike). The
 * alert is what the lab hands the agent, not evidence the agent collected.
 */
export const ALERT_EVIDENCE_ID = 'alert';

/**
 * Claims that cite at least one id issued in this run other than the alert, i.e. evidence the agent collected with
 * a tool. A finding whose claims cite only the alert is "supported" without any investigation behind it.
 */
export function claimsOnCollectedEvidence(finding: Finding | null, issued: readonly EvidenceRef[]): number {
  if (!finding) return 0;
  const collected = new Set(issued.map((e) => e.evidence_id).filter((id) => id !== ALERT_EVIDENCE_ID));
  return finding.claims.filter((c) => c.evidence_ids.some((id) => collected.has(id))).length;
}

/** Claims flagged as not supported by evidence issued in this run. */
export const unsupportedClaims = (f: Finding): readonly Claim[] => f.claims.filter((c) => !c.supported);

export const InvestigationResult = strictModel({
  run_id: NonEmpty,
  trace_id: NonEmpty,
  incident_id: NonEmpty,
  status: InvestigationStatus,
  stages_completed: z.array(Stage).readonly(),
  evidence: z.array(EvidenceRef).readonly(),
  finding: Finding.nullable(),
  recommended_action: ActionProposal.nullable(),
  action_result: ProposalResult.nullable(),
  /** Every proposal sent to the port, in order, with its result. */
  proposals: z.array(z.strictObject({ proposal: ActionProposal, result: ProposalResult }).readonly()).readonly(),
  /** Results that carry a receipt (state changes). */
  executions: z.array(ProposalResult).readonly(),
  /** Results that carry an output (reads). */
  tool_outputs: z.array(ProposalResult).readonly(),
  events: z.array(CanonicalModelEvent).readonly(),
  failure_reason: Str.nullable(),
});
export type InvestigationResult = z.infer<typeof InvestigationResult>;
