/**
 * Fast paths for the contracts built on every event of a scenario run (gateway events, proposals, evidence refs,
 * model turns, proposal results). The values are built by the lab's own code from data that was already validated,
 * so parsing them with zod re-checks what is known. Each builder here checks explicitly what zod would check, and
 * when every check holds it returns exactly what zod's parse returns (same fields, key order, defaults read in the
 * same order, strings trimmed, JSON objects copied and deep-frozen, the value frozen); when any check fails it
 * returns undefined and the caller parses with zod as before, so invalid input gets zod's error unchanged.
 * test/unit/contracts/fast-parse.test.ts holds each builder to its schema with property tests.
 *
 * Values that came out of one of these schemas are also remembered (WeakSets): a deep-frozen parsed value cannot
 * change, so where it is passed on (an evidence ref into a proposal, a port's result into the investigation's
 * result) it need not be parsed again.
 */

import type { PendingApproval } from './approvals.js';
import type { IntrinsicSafety, ScenarioOutcome } from './campaign.js';
import { deepFreeze, IDENTIFIER_PATTERN, newUuid, nowUtc, SHA256_PATTERN, Uuid } from './common.js';
import type { Obligation, PolicyDecision } from './decisions.js';
import {
  DecisionOutcome as DecisionOutcomeSchema,
  Difficulty as DifficultySchema,
  ExecutionStatus as ExecutionStatusSchema,
  FinishReason as FinishReasonSchema,
  InvestigationStatus as InvestigationStatusSchema,
  LeakEncoding as LeakEncodingSchema,
  LeakSink as LeakSinkSchema,
  Mode as ModeSchema,
  RiskTier as RiskTierSchema,
  ScoreFamily as ScoreFamilySchema,
  type Stage,
  Stage as StageSchema,
  TrustLabel as TrustLabelSchema,
} from './enums.js';
import type { GatewayEvent } from './gateway.js';
import type { ExecutionGrant } from './grants.js';
import type { Claim, Finding, InvestigationResult } from './investigation.js';
import type { LeakFinding } from './leaks.js';
import type { CanonicalModelEvent } from './model-turns.js';
import type { ActionProposal, EvidenceRef, ProposalResult } from './proposals.js';

const UUID_PATTERN = Uuid.def.pattern;
const OUTCOMES: ReadonlySet<unknown> = new Set(DecisionOutcomeSchema.options);
const STATUSES: ReadonlySet<unknown> = new Set(ExecutionStatusSchema.options);
const FINISH_REASONS: ReadonlySet<unknown> = new Set(FinishReasonSchema.options);
const STAGES: ReadonlySet<unknown> = new Set(StageSchema.options);
const TRUST_LABELS: ReadonlySet<unknown> = new Set(TrustLabelSchema.options);
export const RISK_TIERS: ReadonlySet<unknown> = new Set(RiskTierSchema.options);

/** `z.string().trim()` with a length range: the trimmed string, or undefined. */
function trimmed(value: unknown, min = 0, max = Number.POSITIVE_INFINITY): string | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  return s.length >= min && s.length <= max ? s : undefined;
}

/** `z.uuid()`: the value unchanged, or undefined. */
const uuid = (value: unknown): string | undefined =>
  typeof value === 'string' && UUID_PATTERN !== undefined && UUID_PATTERN.test(value) ? value : undefined;

/** `Identifier` (trimmed, then the pattern). */
function identifier(value: unknown): string | undefined {
  const s = trimmed(value);
  return s !== undefined && IDENTIFIER_PATTERN.test(s) ? s : undefined;
}

/** A finite number >= 0 (`z.number().min(0)`). */
const nonNegative = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** A safe integer >= 0 (`z.number().int().min(0)`). */
export const count = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * `JsonObject`: a copied, deep-frozen plain object, or undefined. Only the plainest objects take this path (the
 * prototype is Object.prototype or null, own keys are enumerable strings, no `__proto__` or `constructor` key):
 * for those zod's record copies every key and the copy is cloned and frozen, which is what this does.
 */
function jsonObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const keys = Reflect.ownKeys(value);
  if (keys.length !== Object.keys(value).length) return undefined;
  for (const key of keys) if (typeof key !== 'string' || key === '__proto__' || key === 'constructor') return undefined;
  try {
    return deepFreeze(structuredClone(value as Record<string, unknown>));
  } catch {
    return undefined; // not cloneable: zod's parse throws the clone error itself
  }
}

/** `UtcTimestamp` for a value that is already in the normalized form (`Date#toISOString`), else undefined. */
function utcIso(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) || new Date(ms).toISOString() !== value ? undefined : value;
}

/** True for a plain object whose own keys are exactly `keys` (a strict object's input with every field given). */
function exactKeys(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const own = Reflect.ownKeys(value);
  if (own.length !== keys.length) return false;
  for (const key of keys)
    if (!Object.hasOwn(value, key) || (value as Record<string, unknown>)[key] === undefined) return false;
  return true;
}

/** Each element through `item` into a frozen array, or undefined (also for sparse arrays). */
function frozenArray<T>(value: unknown, item: (x: unknown) => T | undefined): readonly T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return undefined;
    const x = item(value[i]);
    if (x === undefined) return undefined;
    out.push(x);
  }
  return Object.freeze(out);
}

export const nonEmpty = (value: unknown): string | undefined => trimmed(value, 1);

const evidenceRefs = new WeakSet<object>();
const actionProposals = new WeakSet<object>();
const proposalResults = new WeakSet<object>();

/** Remember an EvidenceRef parsed by its schema (a frozen value), so proposals citing it need not parse it again. */
export function rememberEvidenceRef(ref: EvidenceRef): EvidenceRef {
  evidenceRefs.add(ref);
  return ref;
}

/** Remember an ActionProposal parsed by its schema (a deep-frozen value), so requests citing it need not parse it. */
export function rememberActionProposal(proposal: ActionProposal): ActionProposal {
  actionProposals.add(proposal);
  return proposal;
}

/** Remember a ProposalResult parsed by its schema (a deep-frozen value). */
export function rememberProposalResult(result: ProposalResult): ProposalResult {
  proposalResults.add(result);
  return result;
}

/** True when `result` came out of the ProposalResult schema (here or in `rememberProposalResult`). */
export const isParsedProposalResult = (result: unknown): result is ProposalResult =>
  typeof result === 'object' && result !== null && proposalResults.has(result);

const GATEWAY_EVENT_KEYS = ['proposal_id', 'kind', 'at', 'detail'] as const;

/** `GatewayEvent.parse(input)` for an event with every field but the id given, or undefined. */
export function fastGatewayEvent(input: unknown): GatewayEvent | undefined {
  if (!exactKeys(input, GATEWAY_EVENT_KEYS)) return undefined;
  const proposalId = uuid(input.proposal_id);
  const kind = identifier(input.kind);
  const at = utcIso(input.at);
  if (proposalId === undefined || kind === undefined || at === undefined) return undefined;
  const detail = jsonObject(input.detail);
  if (detail === undefined) return undefined;
  return Object.freeze({ event_id: newUuid(), proposal_id: proposalId, kind, at, detail });
}

const EVIDENCE_REF_KEYS = ['evidence_id', 'source_tool', 'incident_id', 'trust', 'content_hash', 'summary'] as const;

/** `EvidenceRef.parse(input)` (remembered), or undefined. */
export function fastEvidenceRef(input: unknown): EvidenceRef | undefined {
  if (!exactKeys(input, EVIDENCE_REF_KEYS)) return undefined;
  const evidenceId = trimmed(input.evidence_id, 1);
  const sourceTool = trimmed(input.source_tool, 1);
  const incidentId = trimmed(input.incident_id, 1);
  const hash = trimmed(input.content_hash);
  const summary = trimmed(input.summary, 1, 500);
  if (evidenceId === undefined || sourceTool === undefined || incidentId === undefined || summary === undefined)
    return undefined;
  if (hash === undefined || !SHA256_PATTERN.test(hash) || !TRUST_LABELS.has(input.trust)) return undefined;
  return rememberEvidenceRef(
    Object.freeze({
      evidence_id: evidenceId,
      source_tool: sourceTool,
      incident_id: incidentId,
      trust: input.trust as EvidenceRef['trust'],
      content_hash: hash,
      summary,
    }),
  );
}

const PROPOSAL_KEYS = [
  'agent_id',
  'delegated_user_id',
  'incident_id',
  'tool_name',
  'arguments',
  'evidence_refs',
  'rationale',
  'provider',
  'model',
  'trace_id',
] as const;

/**
 * `ActionProposal.parse(input)` for a proposal without id and time (both defaulted, in that order) whose evidence
 * refs are remembered EvidenceRefs of the proposal's incident, or undefined.
 */
export function fastActionProposal(input: unknown): ActionProposal | undefined {
  if (!exactKeys(input, PROPOSAL_KEYS)) return undefined;
  const agentId = trimmed(input.agent_id, 1);
  const delegatedUserId = trimmed(input.delegated_user_id, 1);
  const incidentId = trimmed(input.incident_id, 1);
  const toolName = identifier(input.tool_name);
  const rationale = trimmed(input.rationale, 1, 2000);
  const provider = trimmed(input.provider, 1);
  const model = trimmed(input.model, 1);
  const traceId = trimmed(input.trace_id, 1);
  if (
    agentId === undefined ||
    delegatedUserId === undefined ||
    incidentId === undefined ||
    toolName === undefined ||
    rationale === undefined ||
    provider === undefined ||
    model === undefined ||
    traceId === undefined
  )
    return undefined;
  const refs = input.evidence_refs;
  if (!Array.isArray(refs) || refs.length === 0) return undefined;
  for (const ref of refs) {
    if (typeof ref !== 'object' || ref === null || !evidenceRefs.has(ref)) return undefined;
    if ((ref as EvidenceRef).incident_id !== incidentId) return undefined; // the schema's refinement reports it
  }
  const args = jsonObject(input.arguments);
  if (args === undefined) return undefined;
  return rememberActionProposal(
    Object.freeze({
      proposal_id: newUuid(),
      agent_id: agentId,
      delegated_user_id: delegatedUserId,
      incident_id: incidentId,
      tool_name: toolName,
      arguments: args,
      evidence_refs: Object.freeze([...(refs as EvidenceRef[])]),
      rationale,
      provider,
      model,
      trace_id: traceId,
      created_at: nowUtc(),
    }),
  );
}

const PROPOSAL_RESULT_KEYS = [
  'proposal_id',
  'tool_name',
  'status',
  'outcome',
  'reason_codes',
  'output',
  'receipt',
  'error',
  'controlled',
] as const;

/** `ProposalResult.parse(input)` (remembered) for a result with every field given (nullables as null), or undefined. */
export function fastProposalResult(input: unknown): ProposalResult | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  // exactKeys refuses undefined values; the nullable fields are given as null.
  const given = input as Record<string, unknown>;
  if (Reflect.ownKeys(given).length !== PROPOSAL_RESULT_KEYS.length) return undefined;
  for (const key of PROPOSAL_RESULT_KEYS) if (!Object.hasOwn(given, key) || given[key] === undefined) return undefined;
  const proposalId = uuid(given.proposal_id);
  const toolName = trimmed(given.tool_name);
  if (proposalId === undefined || toolName === undefined || !STATUSES.has(given.status)) return undefined;
  if (given.outcome !== null && !OUTCOMES.has(given.outcome)) return undefined;
  if (typeof given.controlled !== 'boolean') return undefined;
  const error = given.error === null ? null : trimmed(given.error);
  if (error === undefined || !Array.isArray(given.reason_codes)) return undefined;
  const reasonCodes: string[] = [];
  for (const code of given.reason_codes as unknown[]) {
    const c = trimmed(code);
    if (c === undefined) return undefined;
    reasonCodes.push(c);
  }
  // Sparse arrays or extra array properties: leave them to zod.
  if (reasonCodes.length !== (given.reason_codes as unknown[]).length) return undefined;
  const output = given.output === null ? null : jsonObject(given.output);
  const receipt = given.receipt === null ? null : jsonObject(given.receipt);
  if (output === undefined || receipt === undefined) return undefined;
  return rememberProposalResult(
    Object.freeze({
      proposal_id: proposalId,
      tool_name: toolName,
      status: given.status as ProposalResult['status'],
      outcome: given.outcome as ProposalResult['outcome'],
      reason_codes: Object.freeze(reasonCodes),
      output,
      receipt,
      error,
      controlled: given.controlled,
    }),
  );
}

const MODEL_EVENT_KEYS = [
  'trace_id',
  'run_id',
  'incident_id',
  'agent_id',
  'delegated_user_id',
  'stage',
  'provider',
  'model',
  'finish_reason',
  'output_text',
  'proposed_tool',
  'validated_arguments',
  'evidence_refs',
  'usage',
  'estimated_cost_usd',
  'cost_is_estimated',
  'latency_ms',
  'error',
] as const;
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'estimated'] as const;

/**
 * `CanonicalModelEvent.parse(input)` for a turn as the orchestrator records it (every field but the id, risk tier,
 * policy outcome and time given; nullables as null; no evidence refs), or undefined.
 */
export function fastModelEvent(input: unknown): CanonicalModelEvent | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const given = input as Record<string, unknown>;
  if (Reflect.ownKeys(given).length !== MODEL_EVENT_KEYS.length) return undefined;
  for (const key of MODEL_EVENT_KEYS) if (!Object.hasOwn(given, key) || given[key] === undefined) return undefined;
  const traceId = trimmed(given.trace_id, 1);
  const runId = trimmed(given.run_id, 1);
  const incidentId = trimmed(given.incident_id, 1);
  const agentId = trimmed(given.agent_id, 1);
  const delegatedUserId = trimmed(given.delegated_user_id, 1);
  const provider = trimmed(given.provider, 1);
  const model = trimmed(given.model, 1);
  if (
    traceId === undefined ||
    runId === undefined ||
    incidentId === undefined ||
    agentId === undefined ||
    delegatedUserId === undefined ||
    provider === undefined ||
    model === undefined
  )
    return undefined;
  if (!STAGES.has(given.stage) || !FINISH_REASONS.has(given.finish_reason) || typeof given.output_text !== 'string')
    return undefined;
  const proposedTool = given.proposed_tool === null ? null : trimmed(given.proposed_tool);
  const error = given.error === null ? null : trimmed(given.error);
  if (proposedTool === undefined || error === undefined) return undefined;
  const refs = given.evidence_refs;
  if (!Array.isArray(refs) || refs.length !== 0 || Reflect.ownKeys(refs).length !== 1) return undefined;
  const usage = given.usage;
  if (!exactKeys(usage, USAGE_KEYS)) return undefined;
  if (!count(usage.input_tokens) || !count(usage.output_tokens) || typeof usage.estimated !== 'boolean')
    return undefined;
  const cost = given.estimated_cost_usd;
  if (cost !== null && !nonNegative(cost)) return undefined;
  if (typeof given.cost_is_estimated !== 'boolean' || !nonNegative(given.latency_ms)) return undefined;
  // The schema's refinement: arguments need a tool.
  if (given.validated_arguments !== null && proposedTool === null) return undefined;
  const args = given.validated_arguments === null ? null : jsonObject(given.validated_arguments);
  if (args === undefined) return undefined;
  return Object.freeze({
    event_id: newUuid(),
    trace_id: traceId,
    run_id: runId,
    incident_id: incidentId,
    agent_id: agentId,
    delegated_user_id: delegatedUserId,
    stage: given.stage as CanonicalModelEvent['stage'],
    provider,
    model,
    finish_reason: given.finish_reason as CanonicalModelEvent['finish_reason'],
    output_text: given.output_text,
    proposed_tool: proposedTool,
    validated_arguments: args,
    evidence_refs: Object.freeze([]) as readonly EvidenceRef[],
    risk_tier: null,
    usage: Object.freeze({
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      estimated: usage.estimated,
    }),
    estimated_cost_usd: cost,
    cost_is_estimated: given.cost_is_estimated,
    latency_ms: given.latency_ms,
    policy_outcome: null,
    error,
    created_at: nowUtc(),
  });
}

const DECISION_KEYS = [
  'proposal_id',
  'outcome',
  'reason_codes',
  'obligations',
  'risk_tier',
  'policy_version',
  'explanation',
  'decided_at',
] as const;
const OBLIGATION_KEYS = ['name', 'parameters'] as const;

function obligation(value: unknown): Obligation | undefined {
  if (!exactKeys(value, OBLIGATION_KEYS)) return undefined;
  const name = identifier(value.name);
  const parameters = jsonObject(value.parameters);
  return name === undefined || parameters === undefined ? undefined : Object.freeze({ name, parameters });
}

/** `PolicyDecision.parse(input)` for a decision with every field given (obligations with their parameters). */
export function fastPolicyDecision(input: unknown): PolicyDecision | undefined {
  if (!exactKeys(input, DECISION_KEYS)) return undefined;
  const proposalId = uuid(input.proposal_id);
  const policyVersion = nonEmpty(input.policy_version);
  const explanation = trimmed(input.explanation, 1, 2000);
  const decidedAt = utcIso(input.decided_at);
  if (proposalId === undefined || policyVersion === undefined || explanation === undefined || decidedAt === undefined)
    return undefined;
  if (!OUTCOMES.has(input.outcome) || !RISK_TIERS.has(input.risk_tier)) return undefined;
  const reasonCodes = frozenArray(input.reason_codes, nonEmpty);
  if (reasonCodes === undefined || reasonCodes.length === 0) return undefined;
  const obligations = frozenArray(input.obligations, obligation);
  if (obligations === undefined) return undefined;
  // The schema's refinement: obligations exactly when the outcome carries them.
  const outcome = input.outcome as PolicyDecision['outcome'];
  if (outcome === 'allow_with_obligations' && obligations.length === 0) return undefined;
  if ((outcome === 'allow' || outcome === 'deny') && obligations.length > 0) return undefined;
  return Object.freeze({
    proposal_id: proposalId,
    outcome,
    reason_codes: reasonCodes,
    obligations,
    risk_tier: input.risk_tier as PolicyDecision['risk_tier'],
    policy_version: policyVersion,
    explanation,
    decided_at: decidedAt,
  });
}

const GRANT_KEYS = [
  'grant_id',
  'proposal_id',
  'proposal_hash',
  'run_id',
  'incident_id',
  'tool_name',
  'policy_version',
  'approval_id',
  'obligations_fulfilled',
  'nonce',
  'issued_at',
  'expires_at',
  'signature',
] as const;

const sha256 = (value: unknown): string | undefined => {
  const s = trimmed(value);
  return s !== undefined && SHA256_PATTERN.test(s) ? s : undefined;
};

/** `ExecutionGrant.parse(input)` for a grant as the signer issues it (every field given), or undefined. */
export function fastExecutionGrant(input: unknown): ExecutionGrant | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const given = input as Record<string, unknown>;
  if (Reflect.ownKeys(given).length !== GRANT_KEYS.length) return undefined;
  // approval_id may be null; every other field must be there.
  for (const key of GRANT_KEYS) if (!Object.hasOwn(given, key) || given[key] === undefined) return undefined;
  const grantId = uuid(given.grant_id);
  const proposalId = uuid(given.proposal_id);
  const approvalId = given.approval_id === null ? null : uuid(given.approval_id);
  const proposalHash = sha256(given.proposal_hash);
  const signature = sha256(given.signature);
  const runId = nonEmpty(given.run_id);
  const incidentId = nonEmpty(given.incident_id);
  const toolName = identifier(given.tool_name);
  const policyVersion = nonEmpty(given.policy_version);
  const nonce = nonEmpty(given.nonce);
  const issuedAt = utcIso(given.issued_at);
  const expiresAt = utcIso(given.expires_at);
  const fulfilled = frozenArray(given.obligations_fulfilled, identifier);
  if (
    grantId === undefined ||
    proposalId === undefined ||
    approvalId === undefined ||
    proposalHash === undefined ||
    signature === undefined ||
    runId === undefined ||
    incidentId === undefined ||
    toolName === undefined ||
    policyVersion === undefined ||
    nonce === undefined ||
    issuedAt === undefined ||
    expiresAt === undefined ||
    fulfilled === undefined
  )
    return undefined;
  // The schema's refinement: a grant expires after it is issued.
  if (Date.parse(expiresAt) <= Date.parse(issuedAt)) return undefined;
  return Object.freeze({
    grant_id: grantId,
    proposal_id: proposalId,
    proposal_hash: proposalHash,
    run_id: runId,
    incident_id: incidentId,
    tool_name: toolName,
    policy_version: policyVersion,
    approval_id: approvalId,
    obligations_fulfilled: fulfilled,
    nonce,
    issued_at: issuedAt,
    expires_at: expiresAt,
    signature,
  });
}

const PENDING_KEYS = ['approval_id', 'proposal', 'requested_at', 'reason_codes'] as const;

/** `PendingApproval.parse(input)` for a request on a remembered (parsed) proposal, or undefined. */
export function fastPendingApproval(input: unknown): PendingApproval | undefined {
  if (!exactKeys(input, PENDING_KEYS)) return undefined;
  const approvalId = uuid(input.approval_id);
  const requestedAt = utcIso(input.requested_at);
  const proposal = input.proposal;
  if (approvalId === undefined || requestedAt === undefined) return undefined;
  if (typeof proposal !== 'object' || proposal === null || !actionProposals.has(proposal)) return undefined;
  const reasonCodes = frozenArray(input.reason_codes, nonEmpty);
  if (reasonCodes === undefined) return undefined;
  return Object.freeze({
    approval_id: approvalId,
    proposal: proposal as ActionProposal,
    requested_at: requestedAt,
    reason_codes: reasonCodes,
  });
}

const CLAIM_KEYS = ['text', 'evidence_ids', 'supported'] as const;
const FINDING_KEYS = ['summary', 'claims', 'techniques', 'confidence', 'evidence_refs'] as const;
const str = (value: unknown): string | undefined => trimmed(value);

function claim(value: unknown): Claim | undefined {
  if (!exactKeys(value, CLAIM_KEYS) || typeof value.supported !== 'boolean') return undefined;
  const text = trimmed(value.text);
  const ids = frozenArray(value.evidence_ids, str);
  return text === undefined || ids === undefined
    ? undefined
    : Object.freeze({ text, evidence_ids: ids, supported: value.supported });
}

const rememberedRef = (value: unknown): EvidenceRef | undefined =>
  typeof value === 'object' && value !== null && evidenceRefs.has(value) ? (value as EvidenceRef) : undefined;

/** `Finding.parse(input)` for a finding whose evidence refs are remembered EvidenceRefs, or undefined. */
export function fastFinding(input: unknown): Finding | undefined {
  if (!exactKeys(input, FINDING_KEYS)) return undefined;
  const summary = trimmed(input.summary);
  const confidence = input.confidence;
  if (summary === undefined || typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1))
    return undefined;
  const claims = frozenArray(input.claims, claim);
  const techniques = frozenArray(input.techniques, str);
  const refs = frozenArray(input.evidence_refs, rememberedRef);
  if (claims === undefined || techniques === undefined || refs === undefined) return undefined;
  return Object.freeze({ summary, claims, techniques, confidence, evidence_refs: refs });
}

const HEAD_KEYS = [
  'run_id',
  'trace_id',
  'incident_id',
  'status',
  'stages_completed',
  'finding',
  'failure_reason',
] as const;
const INVESTIGATION_STATUSES: ReadonlySet<unknown> = new Set(InvestigationStatusSchema.options);
const stage = (value: unknown): Stage | undefined => (STAGES.has(value) ? (value as Stage) : undefined);

/** The scalar fields of an InvestigationResult and its finding, as `InvestigationResultHead` parses them. */
export interface InvestigationHead {
  run_id: string;
  trace_id: string;
  incident_id: string;
  status: InvestigationResult['status'];
  stages_completed: readonly Stage[];
  finding: Finding | null;
  failure_reason: string | null;
}

/**
 * `InvestigationResult.unwrap().pick(...)` of the fields in HEAD_KEYS (what the orchestrator parses at the end of a
 * run; a strict object, not frozen), or undefined. Every field must be given (nullables as null).
 */
export function fastInvestigationHead(input: unknown): InvestigationHead | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const given = input as Record<string, unknown>;
  if (Reflect.ownKeys(given).length !== HEAD_KEYS.length) return undefined;
  for (const key of HEAD_KEYS) if (!Object.hasOwn(given, key) || given[key] === undefined) return undefined;
  const runId = nonEmpty(given.run_id);
  const traceId = nonEmpty(given.trace_id);
  const incidentId = nonEmpty(given.incident_id);
  const failure = given.failure_reason === null ? null : trimmed(given.failure_reason);
  if (runId === undefined || traceId === undefined || incidentId === undefined || failure === undefined)
    return undefined;
  if (!INVESTIGATION_STATUSES.has(given.status)) return undefined;
  const stages = frozenArray(given.stages_completed, stage);
  const finding = given.finding === null ? null : fastFinding(given.finding);
  if (stages === undefined || finding === undefined) return undefined;
  return {
    run_id: runId,
    trace_id: traceId,
    incident_id: incidentId,
    status: given.status as InvestigationResult['status'],
    stages_completed: stages,
    finding,
    failure_reason: failure,
  };
}

const LEAK_SINKS: ReadonlySet<unknown> = new Set(LeakSinkSchema.options);
const LEAK_ENCODINGS: ReadonlySet<unknown> = new Set(LeakEncodingSchema.options);
const SCORE_FAMILIES: ReadonlySet<unknown> = new Set(ScoreFamilySchema.options);
const DIFFICULTIES: ReadonlySet<unknown> = new Set(DifficultySchema.options);
const MODES: ReadonlySet<unknown> = new Set(ModeSchema.options);

/** `LeakFinding` with every field given (`where` may be left out: it defaults to null), or undefined. */
function leakFinding(value: unknown): LeakFinding | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const given = value as Record<string, unknown>;
  const keys = Reflect.ownKeys(given);
  const hasWhere = Object.hasOwn(given, 'where') && given.where !== undefined;
  if (keys.length !== (hasWhere ? 5 : 4)) return undefined;
  for (const key of ['sink', 'encoding', 'canary', 'path'] as const) if (!Object.hasOwn(given, key)) return undefined;
  if (!LEAK_SINKS.has(given.sink) || !LEAK_ENCODINGS.has(given.encoding)) return undefined;
  const canary = nonEmpty(given.canary);
  const path = trimmed(given.path);
  const where = hasWhere ? (given.where === null ? null : trimmed(given.where)) : null;
  if (canary === undefined || path === undefined || where === undefined) return undefined;
  return Object.freeze({
    sink: given.sink as LeakFinding['sink'],
    encoding: given.encoding as LeakFinding['encoding'],
    canary,
    path,
    where,
  });
}

const INTRINSIC_KEYS = [
  'harmful_proposals',
  'followed_untrusted_instruction',
  'out_of_scope_attempts',
  'agent_leaks',
  'fabricated_evidence_ids',
] as const;

function intrinsicSafety(value: unknown): IntrinsicSafety | undefined {
  if (!exactKeys(value, INTRINSIC_KEYS)) return undefined;
  if (typeof value.followed_untrusted_instruction !== 'boolean') return undefined;
  if (!count(value.out_of_scope_attempts) || !count(value.fabricated_evidence_ids)) return undefined;
  const harmful = frozenArray(value.harmful_proposals, str);
  const leaks = frozenArray(value.agent_leaks, leakFinding);
  if (harmful === undefined || leaks === undefined) return undefined;
  return {
    harmful_proposals: harmful,
    followed_untrusted_instruction: value.followed_untrusted_instruction,
    out_of_scope_attempts: value.out_of_scope_attempts,
    agent_leaks: leaks,
    fabricated_evidence_ids: value.fabricated_evidence_ids,
  };
}

const OUTCOME_BOOLEANS = [
  'attack_succeeded',
  'leaked_canary',
  'approval_bypassed',
  'unauthorized_state_change',
  'out_of_scope_execution',
  'unapproved_model_used',
  'completed',
  'false_block',
  'audit_chain_valid',
  'cost_is_estimated',
  'errored',
] as const;
const OUTCOME_COUNTS = [
  'claims_total',
  'claims_supported',
  'tool_calls_total',
  'tool_calls_valid',
  'decisions_total',
  'decisions_recorded',
  'tokens_total',
  'cost_unknown_turns',
] as const;
const OUTCOME_KEYS = [
  'scenario_id',
  'scenario_version',
  'attack_class',
  'family',
  'difficulty',
  'mode',
  'run_id',
  'provider',
  'model',
  'expected_techniques',
  'found_techniques',
  'recommended_tool',
  'expected_tool',
  'latency_ms',
  'cost_usd',
  'leaks',
  'error',
  'investigation_status',
  'expected_target',
  'recommended_target',
  'claims_on_collected_evidence',
  'intrinsic',
  'trajectory_hash',
  ...OUTCOME_BOOLEANS,
  ...OUTCOME_COUNTS,
] as const;

const nullableStr = (value: unknown): string | null | undefined => (value === null ? null : trimmed(value));

/** `ScenarioOutcome.parse(input)` for an outcome with every field given (nullables as null), or undefined. */
export function fastScenarioOutcome(input: unknown): ScenarioOutcome | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const g = input as Record<string, unknown>;
  if (Reflect.ownKeys(g).length !== OUTCOME_KEYS.length) return undefined;
  for (const key of OUTCOME_KEYS) if (!Object.hasOwn(g, key) || g[key] === undefined) return undefined;
  for (const key of OUTCOME_BOOLEANS) if (typeof g[key] !== 'boolean') return undefined;
  for (const key of OUTCOME_COUNTS) if (!count(g[key])) return undefined;
  if (!SCORE_FAMILIES.has(g.family) || !DIFFICULTIES.has(g.difficulty) || !MODES.has(g.mode)) return undefined;
  if (g.investigation_status !== null && !INVESTIGATION_STATUSES.has(g.investigation_status)) return undefined;
  if (!nonNegative(g.latency_ms) || !nonNegative(g.cost_usd)) return undefined;
  const onCollected = g.claims_on_collected_evidence;
  if (onCollected !== null && !count(onCollected)) return undefined;
  const ids = [g.scenario_id, g.scenario_version, g.attack_class, g.run_id, g.provider, g.model].map(nonEmpty);
  const texts = [
    g.recommended_tool,
    g.expected_tool,
    g.error,
    g.expected_target,
    g.recommended_target,
    g.trajectory_hash,
  ].map(nullableStr);
  if (ids.includes(undefined) || texts.includes(undefined)) return undefined;
  const expectedTechniques = frozenArray(g.expected_techniques, str);
  const foundTechniques = frozenArray(g.found_techniques, str);
  const leaks = frozenArray(g.leaks, leakFinding);
  const intrinsic = g.intrinsic === null ? null : intrinsicSafety(g.intrinsic);
  if (
    expectedTechniques === undefined ||
    foundTechniques === undefined ||
    leaks === undefined ||
    intrinsic === undefined
  )
    return undefined;
  const [scenarioId, scenarioVersion, attackClass, runId, provider, model] = ids as string[];
  const [recommendedTool, expectedTool, error, expectedTarget, recommendedTarget, trajectoryHash] = texts as (
    | string
    | null
  )[];
  // The schema's refinement.
  const benign = attackClass === 'none';
  if (benign !== (g.difficulty === 'none') || (benign && g.attack_succeeded) || (!benign && g.false_block))
    return undefined;
  if ((g.claims_supported as number) > (g.claims_total as number)) return undefined;
  if (onCollected !== null && (onCollected as number) > (g.claims_total as number)) return undefined;
  if ((g.tool_calls_valid as number) > (g.tool_calls_total as number)) return undefined;
  if ((g.decisions_recorded as number) > (g.decisions_total as number)) return undefined;
  return Object.freeze({
    scenario_id: scenarioId as string,
    scenario_version: scenarioVersion as string,
    attack_class: attackClass as string,
    family: g.family as ScenarioOutcome['family'],
    difficulty: g.difficulty as ScenarioOutcome['difficulty'],
    mode: g.mode as ScenarioOutcome['mode'],
    run_id: runId as string,
    provider: provider as string,
    model: model as string,
    attack_succeeded: g.attack_succeeded as boolean,
    leaked_canary: g.leaked_canary as boolean,
    approval_bypassed: g.approval_bypassed as boolean,
    unauthorized_state_change: g.unauthorized_state_change as boolean,
    out_of_scope_execution: g.out_of_scope_execution as boolean,
    unapproved_model_used: g.unapproved_model_used as boolean,
    claims_total: g.claims_total as number,
    claims_supported: g.claims_supported as number,
    expected_techniques: expectedTechniques,
    found_techniques: foundTechniques,
    recommended_tool: recommendedTool as string | null,
    expected_tool: expectedTool as string | null,
    tool_calls_total: g.tool_calls_total as number,
    tool_calls_valid: g.tool_calls_valid as number,
    completed: g.completed as boolean,
    false_block: g.false_block as boolean,
    decisions_total: g.decisions_total as number,
    decisions_recorded: g.decisions_recorded as number,
    audit_chain_valid: g.audit_chain_valid as boolean,
    latency_ms: g.latency_ms as number,
    cost_usd: g.cost_usd as number,
    cost_is_estimated: g.cost_is_estimated as boolean,
    tokens_total: g.tokens_total as number,
    leaks,
    errored: g.errored as boolean,
    error: error as string | null,
    cost_unknown_turns: g.cost_unknown_turns as number,
    investigation_status: g.investigation_status as ScenarioOutcome['investigation_status'],
    expected_target: expectedTarget as string | null,
    recommended_target: recommendedTarget as string | null,
    claims_on_collected_evidence: onCollected as number | null,
    intrinsic,
    trajectory_hash: trajectoryHash as string | null,
  });
}
