import type { ChainVerification, StoredAuditEvent } from '../contracts/events.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../control/redaction.js';

/**
 * A run's evidence chain as the steps a reviewer walks through: the run's configuration, each model turn, each
 * action the model proposed with everything the control plane did about it (policy decisions with reason codes,
 * approval requests and decisions, grants, executions or refusals, the tool's output), the finding with its
 * supported and unsupported claims, the run-level attacks, and the run's end — each step naming the chain
 * sequences it was read from. Everything is canary-redacted; text written by the model or read from tools is
 * untrusted and is returned as plain strings (the console renders it as text).
 */

type Payload = Record<string, unknown>;

/** What every step carries besides its kind and data. */
interface StepBase {
  index: number;
  title: string;
  at: string | null;
  /** Chain sequences this step was read from. */
  sequences: number[];
  /** What a reviewer reads first: a verdict (a run-level attack stopped or not, how the run ended) and labelled facts. */
  summary?: StepSummary;
}

// The data shapes are type aliases, not interfaces: the route's response schema takes them as JSON records.

/** One model turn as recorded (text fields are untrusted model output). */
export type ModelTurnData = {
  stage: string | null;
  provider: unknown;
  model: unknown;
  finish_reason: unknown;
  output_text: unknown;
  proposed_tool: unknown;
  validated_arguments: unknown;
  error: unknown;
  usage: unknown;
  latency_ms: unknown;
};

/** One policy decision about an action (from a `gateway.policy_decision` event). */
export type ReplayPolicyDecision = {
  sequence: number;
  outcome: string | null;
  reason_codes: unknown[];
  policies: unknown[];
  risk_tier: string | null;
  policy_version: string | null;
};

/** An action the model (or a run-level attack) proposed, with everything the control plane did about it. */
export type ActionData = {
  proposal_id: string;
  tool: string | null;
  arguments: Payload;
  rationale: string | null;
  evidence_refs: { evidence_id: unknown; source_tool: unknown }[];
  model: string | null;
  status: string | null;
  outcome: string | null;
  reason_codes: unknown[];
  controlled: boolean;
  error: string | null;
  policy_decisions: ReplayPolicyDecision[];
  approvals: ({ sequence: number; kind: string } & Payload)[];
  grants: ({ sequence: number } & Payload)[];
  executions: ({ sequence: number; type: string } & Payload)[];
  receipt: Payload | null;
  tool_output: unknown;
  gateway_events: { sequence: number; kind: string; at: string | null }[];
};

/** The finding with its claims split by whether evidence supports them (text is untrusted model output). */
export type FindingData = {
  summary: unknown;
  confidence: unknown;
  techniques: unknown;
  supported_claims: Payload[];
  unsupported_claims: Payload[];
  evidence_ids: unknown[];
};

/**
 * One step of a replay, discriminated by `kind`: model turns, actions and the finding have typed data; the run's
 * start and end, run-level attacks and other control events carry their (redacted) event payload.
 */
export type ReplayStep =
  | (StepBase & { kind: 'model_turn'; data: ModelTurnData })
  | (StepBase & { kind: 'action'; data: ActionData })
  | (StepBase & { kind: 'finding'; data: FindingData })
  | (StepBase & { kind: 'run_started' | 'harness_attack' | 'control_event' | 'run_finished'; data: Payload });

export type ReplayStepKind = ReplayStep['kind'];

export interface StepSummary {
  verdict: { text: string; tone: 'good' | 'bad' | 'warn' | 'muted' } | null;
  facts: [string, string][];
}

export interface Replay {
  run_id: string;
  scenario_id: string | null;
  mode: string | null;
  verification: ChainVerification;
  steps: ReplayStep[];
}

const shown = (v: unknown): string =>
  v === null || v === undefined || v === ''
    ? '-'
    : Array.isArray(v)
      ? v.length === 0
        ? 'none'
        : v.map(shown).join(', ')
      : typeof v === 'object'
        ? Object.entries(v as Payload)
            .map(([k, x]) => `${k}=${shown(x)}`)
            .join(', ')
        : typeof v === 'boolean'
          ? v
            ? 'yes'
            : 'no'
          : String(v);

const factsOf = (p: Payload, labels: [string, string][]): [string, string][] =>
  labels.filter(([k]) => p[k] !== undefined).map(([k, label]) => [label, shown(p[k])]);

function runStartedSummary(p: Payload): StepSummary {
  return {
    verdict: null,
    facts: factsOf(p, [
      ['scenario_id', 'scenario'],
      ['scenario_version', 'scenario version'],
      ['attack_class', 'attack class'],
      ['scenario_family', 'family'],
      ['scenario_difficulty', 'difficulty'],
      ['mode', 'mode'],
      ['provider', 'provider'],
      ['model', 'model'],
      ['incident_id', 'incident'],
      ['fixture', 'fixture'],
      ['fixture_version', 'fixture version'],
      ['injections', 'injections'],
    ]),
  };
}

/** A run-level attack (performed by the harness, not the model): stopped, succeeded, or not attempted. */
function harnessAttackSummary(p: Payload): StepSummary {
  const detail = obj(p.detail);
  const succeeded = p.succeeded === true || p.honoured === true;
  const verdict =
    p.attempted === false
      ? { text: 'not attempted', tone: 'muted' as const }
      : succeeded
        ? { text: 'succeeded', tone: 'bad' as const }
        : { text: 'stopped', tone: 'good' as const };
  const stoppedBy = p.stopped_by ?? detail.executor ?? detail.replay;
  const facts: [string, string][] = [['attack', String(p.attack ?? '?').replace(/_/g, ' ')]];
  if (verdict.text === 'stopped' && stoppedBy !== undefined && stoppedBy !== null)
    facts.push(['stopped by', shown(stoppedBy)]);
  if (p.attempted === false && detail.reason !== undefined) facts.push(['why not', shown(detail.reason)]);
  for (const [k, v] of Object.entries(detail)) {
    if (k === 'executor' || k === 'replay' || k === 'reason') continue;
    facts.push([k.replace(/_/g, ' '), shown(v)]);
  }
  return { verdict, facts };
}

function runFinishedSummary(p: Payload): StepSummary {
  const status = str(p.status) ?? '?';
  const tone = status === 'complete' ? 'good' : status === 'incomplete' ? 'warn' : 'bad';
  return {
    verdict: { text: status, tone },
    facts: factsOf(p, [
      ['failure_reason', 'failure reason'],
      ['forged_grant_honored', 'forged grant honoured'],
      ['tampered_copy_verified', 'tampered copy verified'],
    ]),
  };
}
const obj = (v: unknown): Payload => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Payload) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

interface ActionGroup {
  proposal_id: string;
  at: string | null;
  sequences: number[];
  proposal: Payload | null;
  result: Payload | null;
  gateway: { sequence: number; kind: string; at: string | null; detail: Payload }[];
  executor: { sequence: number; type: string; payload: Payload }[];
  tool_output: unknown;
  receipt: Payload | null;
}

function actionData(g: ActionGroup): ActionData {
  const p = g.proposal ?? {};
  const decisions = g.gateway
    .filter((e) => e.kind === 'policy_decision')
    .map((e) => ({
      sequence: e.sequence,
      outcome: str(e.detail.outcome),
      reason_codes: Array.isArray(e.detail.reasons) ? e.detail.reasons : [],
      policies: Array.isArray(e.detail.policies) ? e.detail.policies : [],
      risk_tier: str(e.detail.risk_tier),
      policy_version: str(e.detail.version),
    }));
  const approvals = g.gateway
    .filter((e) => e.kind === 'approval_requested' || e.kind === 'approval_decided' || e.kind === 'approval_skipped')
    .map((e) => ({ sequence: e.sequence, kind: e.kind, ...e.detail }));
  const grants = g.gateway.filter((e) => e.kind === 'grant_issued').map((e) => ({ sequence: e.sequence, ...e.detail }));
  const result = g.result ?? {};
  return {
    proposal_id: g.proposal_id,
    tool: str(p.tool_name) ?? str(result.tool_name),
    arguments: obj(p.arguments),
    rationale: str(p.rationale),
    evidence_refs: Array.isArray(p.evidence_refs)
      ? p.evidence_refs.map((r) => ({ evidence_id: obj(r).evidence_id, source_tool: obj(r).source_tool }))
      : [],
    model: p.provider ? `${p.provider}/${p.model}` : null,
    status: str(result.status),
    outcome: str(result.outcome),
    reason_codes: Array.isArray(result.reason_codes) ? result.reason_codes : [],
    controlled: result.controlled === true,
    error: str(result.error),
    policy_decisions: decisions,
    approvals,
    grants,
    executions: g.executor.map((e) => ({ sequence: e.sequence, type: e.type, ...e.payload })),
    receipt: g.receipt,
    tool_output: g.tool_output ?? null,
    gateway_events: g.gateway.map((e) => ({ sequence: e.sequence, kind: e.kind, at: e.at })),
  };
}

/** Build the replay of one run from its stored events (in sequence order) and its verification. */
export function buildReplay(events: readonly StoredAuditEvent[], verification: ChainVerification): Replay {
  const parts = emptyParts();
  for (const event of redactedEvents(events)) readEvent(parts, event);
  const actions = [...parts.groups.values()];
  const middle = interleaveTurnsAndActions(
    parts.turns,
    actions.filter((g) => parts.portProposals.has(g.proposal_id)).map((g) => ({ at: g.at, step: actionStep(g) })),
    parts.finding,
  );
  // Proposals made by the run-level attacks (replays, mutations) come before the attack summaries.
  const attackActions = actions.filter((g) => !parts.portProposals.has(g.proposal_id)).map(actionStep);
  const steps = [...parts.head, ...middle, ...parts.loose, ...attackActions, ...parts.tail].map((s, index) => ({
    ...s,
    index,
  }));
  return { run_id: verification.run_id, scenario_id: parts.scenarioId, mode: parts.mode, verification, steps };
}

interface ReadEvent {
  sequence: number;
  type: string;
  payload: Payload;
}

/** The events with every canary redacted, before anything of them is shown. */
function redactedEvents(events: readonly StoredAuditEvent[]): ReadEvent[] {
  return redact(
    events.map((e) => ({ sequence: e.sequence, type: e.event_type, payload: e.payload as Payload })),
    DEFAULT_CANARY_PATTERNS,
  );
}

/** A model turn step with the investigation stage it answered (null for a free-form agent). */
export interface TurnStep {
  readonly step: ReplayStep;
  readonly stage: string | null;
}

/** What one pass over the chain collects, by where it goes in the replay. */
interface ReplayParts {
  scenarioId: string | null;
  mode: string | null;
  head: ReplayStep[];
  turns: TurnStep[];
  finding: ReplayStep | null;
  /** Events tied to no proposal, in chain order. */
  loose: ReplayStep[];
  /** Run-level attacks and the run's end. */
  tail: ReplayStep[];
  /** Everything about each proposal, by proposal id, in order of first mention. */
  groups: Map<string, ActionGroup>;
  /** Proposals the model made through the port (the others came from run-level attacks). */
  portProposals: Set<string>;
}

const emptyParts = (): ReplayParts => ({
  scenarioId: null,
  mode: null,
  head: [],
  turns: [],
  finding: null,
  loose: [],
  tail: [],
  groups: new Map(),
  portProposals: new Set(),
});

function groupOf(parts: ReplayParts, id: string): ActionGroup {
  let g = parts.groups.get(id);
  if (!g) {
    g = {
      proposal_id: id,
      at: null,
      sequences: [],
      proposal: null,
      result: null,
      gateway: [],
      executor: [],
      tool_output: undefined,
      receipt: null,
    };
    parts.groups.set(id, g);
  }
  return g;
}

/** Puts one event where it belongs: a step of its own, or the action group of the proposal it is about. */
function readEvent(parts: ReplayParts, { sequence, type, payload }: ReadEvent): void {
  if (type === 'run.started') {
    parts.scenarioId = str(payload.scenario_id);
    parts.mode = str(payload.mode);
    parts.head.push(runStartedStep(sequence, payload));
  } else if (type === 'model.turn') {
    parts.turns.push(modelTurnStep(sequence, payload));
  } else if (type === 'port.proposal') {
    const proposal = obj(payload.proposal);
    const id = str(proposal.proposal_id) ?? `unknown-${sequence}`;
    const g = groupOf(parts, id);
    parts.portProposals.add(id);
    g.proposal = proposal;
    g.result = obj(payload.result);
    g.at = str(proposal.created_at);
    g.sequences.push(sequence);
  } else if (type === 'tool.output' || type === 'execution.receipt') {
    const id = str(payload.proposal_id);
    if (id) {
      const g = groupOf(parts, id);
      g.sequences.push(sequence);
      if (type === 'tool.output') g.tool_output = payload.output;
      else g.receipt = obj(payload.receipt);
      g.result ??= payload;
    }
  } else if (type.startsWith('gateway.')) {
    readGatewayEvent(parts, sequence, type, payload);
  } else if (type.startsWith('executor.')) {
    const id = str(payload.proposal_id);
    if (id) {
      const g = groupOf(parts, id);
      g.sequences.push(sequence);
      g.executor.push({ sequence, type, payload });
    } else {
      parts.loose.push(step('control_event', `Executor: ${type.slice(9)}`, sequence, payload));
    }
  } else if (type === 'finding') {
    parts.finding = findingStep(sequence, payload);
  } else if (type === 'harness.attack') {
    parts.tail.push(harnessAttackStep(sequence, payload));
  } else if (type === 'run.finished') {
    parts.tail.push({
      ...step('run_finished', `Run finished: ${payload.status ?? '?'}`, sequence, payload),
      summary: runFinishedSummary(payload),
    });
  } else {
    parts.loose.push(step('control_event', type, sequence, payload));
  }
}

/** A step that carries its event's payload as is (index set when the replay is assembled). */
const step = (
  kind: 'run_started' | 'harness_attack' | 'control_event' | 'run_finished',
  title: string,
  sequence: number,
  data: Payload,
  at: string | null = null,
): ReplayStep => ({ index: 0, kind, title, at, sequences: [sequence], data });

function runStartedStep(sequence: number, payload: Payload): ReplayStep {
  return {
    ...step(
      'run_started',
      `Run started: ${payload.scenario_id ?? 'scenario'} in ${payload.mode ?? '?'} mode`,
      sequence,
      payload,
    ),
    summary: runStartedSummary(payload),
  };
}

function modelTurnStep(sequence: number, payload: Payload): TurnStep {
  const stage = str(payload.stage);
  // A free-form (MCP) agent has no stages: its turn is one tool call.
  const call = stage === null && payload.provider === 'mcp' ? str(payload.proposed_tool) : null;
  return {
    stage,
    step: {
      index: 0,
      kind: 'model_turn',
      title: call ? `Agent call: ${call}` : `Model turn${stage ? `: ${stage}` : ''}`,
      at: str(payload.created_at),
      sequences: [sequence],
      data: {
        stage,
        provider: payload.provider,
        model: payload.model,
        finish_reason: payload.finish_reason,
        output_text: payload.output_text,
        proposed_tool: payload.proposed_tool ?? null,
        validated_arguments: payload.validated_arguments ?? null,
        error: payload.error ?? null,
        usage: payload.usage ?? null,
        latency_ms: payload.latency_ms ?? null,
      },
    },
  };
}

/** A control-plane event joins its proposal's action; one about no proposal is a step of its own. */
function readGatewayEvent(parts: ReplayParts, sequence: number, type: string, payload: Payload): void {
  const id = str(payload.proposal_id);
  const entry = {
    sequence,
    kind: str(payload.kind) ?? type.slice(8),
    at: str(payload.at),
    detail: obj(payload.detail),
  };
  if (id) {
    const g = groupOf(parts, id);
    g.sequences.push(sequence);
    g.gateway.push(entry);
    g.at ??= entry.at;
  } else {
    parts.loose.push(
      step(
        'control_event',
        `Control plane: ${entry.kind.replace(/_/g, ' ')}`,
        sequence,
        {
          kind: entry.kind,
          detail: entry.detail,
        },
        entry.at,
      ),
    );
  }
}

function findingStep(sequence: number, payload: Payload): ReplayStep {
  const claims = Array.isArray(payload.claims) ? payload.claims.map(obj) : [];
  return {
    index: 0,
    kind: 'finding',
    title: 'Finding',
    at: null,
    sequences: [sequence],
    data: {
      summary: payload.summary ?? null,
      confidence: payload.confidence ?? null,
      techniques: payload.techniques ?? [],
      supported_claims: claims.filter((c) => c.supported === true),
      unsupported_claims: claims.filter((c) => c.supported !== true),
      evidence_ids: Array.isArray(payload.evidence_refs) ? payload.evidence_refs.map((r) => obj(r).evidence_id) : [],
    },
  };
}

function harnessAttackStep(sequence: number, payload: Payload): ReplayStep {
  const summary = harnessAttackSummary(payload);
  return {
    ...step(
      'harness_attack',
      `Run-level attack: ${String(payload.attack ?? '?').replace(/_/g, ' ')} → ${summary.verdict?.text ?? '?'}`,
      sequence,
      payload,
    ),
    summary,
  };
}

/** One proposal's group as an action step, titled with what became of it. */
function actionStep(g: ActionGroup): ReplayStep {
  const data = actionData(g);
  const status = data.status ?? (g.gateway.some((e) => e.kind === 'executed') ? 'executed' : 'recorded');
  return {
    index: 0,
    kind: 'action',
    title: `Action: ${data.tool ?? 'unknown tool'} → ${status}`,
    at: g.at,
    sequences: [...g.sequences].sort((a, b) => a - b),
    data,
  };
}

/**
 * Model turns and the actions the model proposed, interleaved by time: at the same instant a turn comes before
 * an action (a turn comes before what it proposed), otherwise each keeps its chain order. The finding follows
 * the turn of the `form_finding` stage, or closes the list when no turn had that stage. Untimed entries sort
 * first.
 */
export function interleaveTurnsAndActions(
  turns: readonly TurnStep[],
  actions: readonly { at: string | null; step: ReplayStep }[],
  finding: ReplayStep | null,
): ReplayStep[] {
  const timed: { at: string; order: number; step: ReplayStep; stage?: string | null }[] = [];
  turns.forEach((t, i) => {
    timed.push({ at: t.step.at ?? '', order: i * 2, step: t.step, stage: t.stage });
  });
  actions.forEach((a, i) => {
    timed.push({ at: a.at ?? '', order: i * 2 + 1, step: a.step });
  });
  timed.sort((a, b) =>
    a.at < b.at
      ? -1
      : a.at > b.at
        ? 1
        : (a.step.kind === 'model_turn' ? 0 : 1) - (b.step.kind === 'model_turn' ? 0 : 1) || a.order - b.order,
  );
  const middle: ReplayStep[] = [];
  let findingPlaced = false;
  for (const t of timed) {
    middle.push(t.step);
    if (finding && !findingPlaced && t.stage === 'form_finding') {
      middle.push(finding);
      findingPlaced = true;
    }
  }
  if (finding && !findingPlaced) middle.push(finding);
  return middle;
}
