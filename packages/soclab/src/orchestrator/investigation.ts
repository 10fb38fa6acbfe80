import { toError } from '@aeh/harness/errors';
import { backoffDelay, type RetryBudget, type RetryPolicy, sleep } from '@aeh/harness/retry';
import {
  CapabilityUnsupportedError,
  MalformedResponseError,
  type Message,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from '@aeh/models';
import type { z } from 'zod';
import { contentHash, sortedJson } from '../contracts/canonical.js';
import { formatZodIssues, newUuid, parseContract } from '../contracts/common.js';
import {
  COLLECTION_STAGES,
  type CollectionStage,
  type Stage,
  WORKING_STAGES,
  type WorkingStage,
} from '../contracts/enums.js';
import {
  fastActionProposal,
  fastEvidenceRef,
  fastInvestigationHead,
  fastModelEvent,
  isParsedProposalResult,
  rememberActionProposal,
  rememberEvidenceRef,
} from '../contracts/fast-parse.js';
import { ALERT_EVIDENCE_ID, checkedFinding, type Finding, InvestigationResult } from '../contracts/investigation.js';
import { CanonicalModelEvent } from '../contracts/model-turns.js';
import {
  ActionProposal,
  type EvidenceRef,
  EvidenceRef as EvidenceRefSchema,
  type ProposalResult,
  ProposalResult as ProposalResultSchema,
} from '../contracts/proposals.js';
import type { ProposalPort } from './port.js';
import { READ_ONLY_TOOL_SPECS, responseSchema, STAGE_GOALS, SYSTEM_PROMPT, stageInstruction } from './prompts.js';
import { FindingPlan, ToolPlan } from './replies.js';

export interface InvestigationOptions {
  incidentId: string;
  /** The alert as presented to the model (untrusted). */
  alert: Readonly<Record<string, unknown>>;
  provider: ModelProvider;
  /** The only tool interface: every tool the model wants crosses `port.propose`. */
  port: ProposalPort;
  agentId?: string;
  delegatedUserId?: string;
  runId?: string;
  /** Default `trace-` + the first 12 hex characters of the run id. */
  traceId?: string;
  /** Maximum model turns (default 12). */
  maxSteps?: number;
  signal?: AbortSignal;
  /** Called after each model turn is recorded. */
  onTurn?: (event: CanonicalModelEvent) => void;
  /** Called after each proposal has crossed the port. */
  onProposal?: (proposal: ActionProposal, result: ProposalResult) => void;
  /** Retries of retryable provider failures (429, 408, 5xx, connection resets); default none. */
  retry?: ProviderRetry;
}

/**
 * How the orchestrator retries a model call that failed retryably: the harness runner's policy (attempts, backoff
 * with jitter, Retry-After honoured up to a cap) and a budget shared by every run of a campaign. Each failed
 * attempt is recorded as an error turn, so it is on the evidence chain.
 */
export interface ProviderRetry {
  policy: RetryPolicy;
  budget: RetryBudget;
  /** Jitter source (tests fix it). */
  random?: () => number;
  /** Waits `ms` or until `signal` aborts (tests record the waits instead). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_AGENT_ID = 'soc-investigator';
export const DEFAULT_DELEGATED_USER_ID = 'analyst-1';
export const DEFAULT_MAX_STEPS = 12;

const READ_ONLY_NAMES = new Set(READ_ONLY_TOOL_SPECS.map((t) => t.name));

/** The fields of an InvestigationResult this class does not build through a schema of their own (see result()). */
const ResultHead = InvestigationResult.unwrap().pick({
  run_id: true,
  trace_id: true,
  incident_id: true,
  status: true,
  stages_completed: true,
  finding: true,
  failure_reason: true,
});

class StepLimitReached extends Error {
  override name = 'StepLimitReached';
}

/**
 * A provider or transport failure (vendor HTTP error, refused key, connection reset, timeout): the run says
 * nothing about the model, so it ends `errored`. A reply that arrived but is malformed, or a capability the
 * provider lacks, is the model's (or its configuration's) failure and ends `failed`.
 */
export function isProviderFailure(error: unknown): boolean {
  return (
    error instanceof ProviderError &&
    !(error instanceof MalformedResponseError) &&
    !(error instanceof CapabilityUnsupportedError)
  );
}

/** Refusal codes the `http` agent adapter writes for a failed exchange (not for a bad reply). */
const TRANSPORT_REFUSALS = new Set([
  'transport_error',
  'timeout',
  'authentication_rejected',
  'request_rejected',
  'agent_error',
  'unexpected_status',
]);

/** The adapter's refusal code in an error turn's text (`{"refusal":{"code":...}}`), if it is a transport one. */
function transportRefusal(text: string): string | null {
  try {
    const code = (JSON.parse(text) as { refusal?: { code?: unknown } } | null)?.refusal?.code;
    return typeof code === 'string' && TRANSPORT_REFUSALS.has(code) ? code : null;
  } catch {
    return null;
  }
}

/** The first `max` UTF-16 units without a lone high surrogate at the cut (canonical JSON refuses those). */
const cutText = (text: string, max: number): string => text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');

/** `trace-` + first 12 hex characters of the run id (dashes removed). */
export const traceIdFor = (runId: string): string => `trace-${runId.replace(/-/g, '').slice(0, 12)}`;

/**
 * Run the seven-stage bounded investigation. Never throws for model misbehaviour: malformed replies and invalid
 * proposals end the run as `failed` with a reason, provider/transport failures (after the provider's retries) as
 * `errored`; the step bound ends it as `incomplete`.
 * The orchestrator holds no simulator and no executor; it only talks to `port`.
 */
export async function runInvestigation(options: InvestigationOptions): Promise<InvestigationResult> {
  return new Investigation(options).run();
}

class Investigation {
  private readonly runId: string;
  private readonly traceId: string;
  private readonly agentId: string;
  private readonly delegatedUserId: string;
  private readonly maxSteps: number;
  private readonly messages: Message[] = [];
  private readonly evidence = new Map<string, EvidenceRef>();
  private readonly events: CanonicalModelEvent[] = [];
  /** Failed attempts that were retried (recorded as error turns). */
  private retried = 0;
  private readonly proposals: { proposal: ActionProposal; result: ProposalResult }[] = [];
  private readonly stages: Stage[] = [];
  private finding: Finding | null = null;
  private recommended: ActionProposal | null = null;
  private actionResult: ProposalResult | null = null;

  constructor(private readonly o: InvestigationOptions) {
    this.runId = o.runId ?? newUuid();
    this.traceId = o.traceId ?? traceIdFor(this.runId);
    this.agentId = o.agentId ?? DEFAULT_AGENT_ID;
    this.delegatedUserId = o.delegatedUserId ?? DEFAULT_DELEGATED_USER_ID;
    this.maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
  }

  async run(): Promise<InvestigationResult> {
    let status: InvestigationResult['status'] = 'complete';
    let failure: string | null = null;
    try {
      this.start();
      for (const stage of WORKING_STAGES) {
        if ((COLLECTION_STAGES as readonly string[]).includes(stage)) await this.collect(stage as CollectionStage);
        else if (stage === 'form_finding') await this.formFinding();
        else await this.proposeAction();
        this.stages.push(stage);
      }
      this.stages.push('complete');
    } catch (error) {
      const e = toError(error);
      status = e instanceof StepLimitReached ? 'incomplete' : isProviderFailure(e) ? 'errored' : 'failed';
      failure = e instanceof StepLimitReached ? e.message : `${e.name}: ${e.message}`;
    }
    return this.result(status, failure);
  }

  /**
   * The run's InvestigationResult, equal to `InvestigationResult.parse` of its parts (a unit test holds it to that)
   * without parsing again what was parsed as it was made: the model turns, evidence refs and proposals (each built
   * by its own schema in this class) are taken as they are, and so are the port's results that came out of the
   * ProposalResult schema (contracts/fast-parse.ts); other results, the finding (built from the validated reply,
   * Finding's own rules still apply: trimmed ids) and the scalars are parsed here, once. Re-parsing
   * every turn and proposal at the end was the largest zod cost of a run.
   */
  private result(status: InvestigationResult['status'], failure: string | null): InvestigationResult {
    const input = {
      run_id: this.runId,
      trace_id: this.traceId,
      incident_id: this.o.incidentId,
      status,
      stages_completed: this.stages,
      finding: this.finding,
      failure_reason: failure,
    };
    const head = fastInvestigationHead(input) ?? ResultHead.parse(input);
    const parsed = new Map<ProposalResult, ProposalResult>();
    const proposals = this.proposals.map(({ proposal, result }) => {
      // A result the schema made (the gateway's, the baseline port's) is deep-frozen: parsing it again gives it back.
      const checked = isParsedProposalResult(result) ? result : ProposalResultSchema.parse(result);
      parsed.set(result, checked);
      return Object.freeze({ proposal, result: checked });
    });
    const results = proposals.map((p) => p.result);
    return Object.freeze({
      run_id: head.run_id,
      trace_id: head.trace_id,
      incident_id: head.incident_id,
      status: head.status,
      stages_completed: head.stages_completed,
      evidence: Object.freeze([...this.evidence.values()]),
      finding: head.finding,
      recommended_action: this.recommended,
      action_result: this.actionResult === null ? null : (parsed.get(this.actionResult) ?? null),
      proposals: Object.freeze(proposals),
      executions: Object.freeze(results.filter((r) => r.receipt !== null)),
      tool_outputs: Object.freeze(results.filter((r) => r.output !== null)),
      events: Object.freeze([...this.events]),
      failure_reason: head.failure_reason,
    });
  }

  private start(): void {
    const alert = this.o.alert;
    const title = typeof alert.title === 'string' && alert.title.trim() ? alert.title : 'alert';
    this.register(ALERT_EVIDENCE_ID, 'alert', alert, cutText(title, 500));
    this.messages.push({ role: 'user', content: sortedJson({ alert }), trust: 'untrusted', tool_name: null });
  }

  private register(id: string, sourceTool: string, content: unknown, summary: string): EvidenceRef {
    const input = {
      evidence_id: id,
      source_tool: sourceTool,
      incident_id: this.o.incidentId,
      trust: 'untrusted',
      content_hash: contentHash(content),
      summary: summary.trim() === '' ? sourceTool : cutText(summary, 500),
    };
    const ref = fastEvidenceRef(input) ?? rememberEvidenceRef(EvidenceRefSchema.parse(input));
    this.evidence.set(id, ref);
    return ref;
  }

  /** The refs issued in this run for these ids, in order; an id never issued has none. */
  private issued(ids: readonly string[]): EvidenceRef[] {
    return ids.flatMap((id) => this.evidence.get(id) ?? []);
  }

  /** The alert's ref, registered before the first stage runs. */
  private alertRef(): EvidenceRef {
    const ref = this.evidence.get(ALERT_EVIDENCE_ID);
    if (!ref) throw new Error('the alert evidence is not registered: collection stages run only after the alert');
    return ref;
  }

  /** One model turn: build the request, call the provider, record the turn, return the structured payload. */
  private async ask(stage: WorkingStage): Promise<Record<string, unknown>> {
    // Retried attempts are on the chain but are not steps: a rate-limited vendor does not shorten the run.
    if (this.events.length - this.retried >= this.maxSteps) {
      throw new StepLimitReached(`maximum steps (${this.maxSteps}) exhausted before ${stage}`);
    }
    const request: ModelRequest = {
      stage,
      system_prompt: SYSTEM_PROMPT,
      messages: [
        ...this.messages,
        { role: 'user', content: stageInstruction(stage), trust: 'trusted', tool_name: null },
      ],
      tools: (COLLECTION_STAGES as readonly string[]).includes(stage) ? [...READ_ONLY_TOOL_SPECS] : [],
      response_schema: responseSchema(stage),
      max_output_tokens: 1024,
      temperature: 0,
      run_id: this.runId,
      trace_id: this.traceId,
      incident_id: this.o.incidentId,
    };
    let response: ModelResponse | undefined;
    for (let attempt = 1; response === undefined; attempt++) {
      try {
        response = await this.o.provider.generateStructured(request, this.o.signal);
      } catch (error) {
        const e = toError(error);
        const retry = this.o.retry;
        const wait = this.retryWait(e, attempt);
        if (wait === null || retry === undefined) {
          this.recordTurn(stage, null, `${e.name}: ${e.message}`);
          throw e instanceof ProviderError ? e : new ProviderError(e.message);
        }
        this.retried++;
        this.recordTurn(
          stage,
          null,
          `${e.name}: ${e.message} (attempt ${attempt} of ${retry.policy.maxAttempts}; retrying in ${(wait / 1000).toFixed(1)} s)`,
        );
        await (retry.sleep ?? sleep)(wait, this.o.signal);
        if (this.o.signal?.aborted) throw e;
      }
    }
    this.recordTurn(stage, response, response.finish_reason === 'error' ? 'provider reported an error' : null);

    let payload = response.structured;
    if (response.tool_call) {
      const call = response.tool_call;
      const inner = call.arguments as Record<string, unknown>;
      const unwrapped =
        typeof inner.tool === 'string' && inner.arguments !== null && typeof inner.arguments === 'object'
          ? { tool: inner.tool, arguments: inner.arguments }
          : { tool: call.name, arguments: inner };
      if (payload && typeof payload.tool === 'string' && payload.tool !== unwrapped.tool) {
        throw new MalformedResponseError(`more than one tool call at ${stage}: ${payload.tool} and ${unwrapped.tool}`);
      }
      if (!payload) {
        payload = { ...unwrapped, rationale: response.output_text.trim() || 'native tool call', evidence_ids: [] };
      }
    }
    if (response.finish_reason === 'error' && transportRefusal(response.output_text)) {
      throw new ProviderError(`provider failed at ${stage}: ${response.output_text.slice(0, 300)}`, {
        code: transportRefusal(response.output_text) ?? undefined,
      });
    }
    if (response.finish_reason === 'error' || !payload) {
      throw new MalformedResponseError(
        `provider returned no structured output at ${stage}: ${response.output_text.slice(0, 120)}`,
      );
    }
    return payload;
  }

  /** Milliseconds to wait before retrying a failed call, or null when it must not be retried. */
  private retryWait(error: Error, attempt: number): number | null {
    const retry = this.o.retry;
    if (!retry || this.o.signal?.aborted || !isProviderFailure(error)) return null;
    const e = error as ProviderError;
    if (!e.retryable || attempt >= retry.policy.maxAttempts || !retry.budget.take()) return null;
    return backoffDelay(retry.policy, attempt, e.retryAfterSeconds, retry.random);
  }

  private recordTurn(stage: WorkingStage, response: ModelResponse | null, error: string | null): void {
    const tool = response?.tool_call ?? null;
    // A JSON answer proposes a tool too (`{"tool": ..., "arguments": ...}`, every vendor's propose_action turn).
    const jsonTool = typeof response?.structured?.tool === 'string' ? response.structured.tool : null;
    const input = {
      trace_id: this.traceId,
      run_id: this.runId,
      incident_id: this.o.incidentId,
      agent_id: this.agentId,
      delegated_user_id: this.delegatedUserId,
      stage,
      provider: response?.provider ?? this.o.provider.providerId,
      model: response?.model ?? this.o.provider.model,
      finish_reason: response?.finish_reason ?? 'error',
      output_text: response?.output_text ?? '',
      proposed_tool: tool?.name ?? (jsonTool && jsonTool.length <= 200 ? jsonTool : null),
      validated_arguments: tool?.arguments ?? null,
      // Given rather than defaulted: a default skips the schema's readonly(), and the result is deeply frozen.
      evidence_refs: [],
      usage: response?.usage ?? { input_tokens: 0, output_tokens: 0, estimated: true },
      estimated_cost_usd: response?.estimated_cost_usd ?? null,
      cost_is_estimated: response?.cost_is_estimated ?? true,
      latency_ms: response?.latency_ms ?? 0,
      error,
    };
    // Same checks and value as the schema's parse (contracts/fast-parse.ts); anything else is left to zod.
    const event = fastModelEvent(input) ?? CanonicalModelEvent.parse(input);
    this.events.push(event);
    this.o.port.recordCost?.(event.estimated_cost_usd ?? 0);
    this.o.port.recordTurn?.({ provider: event.provider, model: event.model });
    this.o.onTurn?.(event);
  }

  private validate<S extends z.ZodType>(stage: WorkingStage, schema: S, payload: unknown): z.output<S> {
    const r = schema.safeParse(payload);
    if (!r.success) throw new MalformedResponseError(`invalid reply at ${stage}: ${formatZodIssues(r.error)}`);
    return r.data;
  }

  private async propose(
    tool: string,
    args: Record<string, unknown>,
    refs: EvidenceRef[],
    rationale: string,
  ): Promise<{ proposal: ActionProposal; result: ProposalResult }> {
    const input = {
      agent_id: this.agentId,
      delegated_user_id: this.delegatedUserId,
      incident_id: this.o.incidentId,
      tool_name: tool,
      arguments: args,
      evidence_refs: refs,
      rationale: rationale.slice(0, 2000),
      provider: this.o.provider.providerId,
      model: this.o.provider.model,
      trace_id: this.traceId,
    };
    // The refs are this run's parsed refs, so only the new fields need checking (contracts/fast-parse.ts).
    const proposal =
      fastActionProposal(input) ?? rememberActionProposal(parseContract('ActionProposal', ActionProposal, input));
    const result = await this.o.port.propose(proposal);
    this.proposals.push({ proposal, result });
    this.o.onProposal?.(proposal, result);
    return { proposal, result };
  }

  private async collect(stage: CollectionStage): Promise<void> {
    const plan = this.validate(stage, ToolPlan, await this.ask(stage));
    if (!READ_ONLY_NAMES.has(plan.tool)) {
      throw new MalformedResponseError(
        `${plan.tool} requested at ${stage}: only read-only tools are permitted here (${STAGE_GOALS[stage]})`,
      );
    }
    const { result } = await this.propose(plan.tool, plan.arguments, [this.alertRef()], `collect evidence at ${stage}`);
    if (result.status !== 'executed' || result.output === null) {
      this.messages.push({
        role: 'tool',
        content: sortedJson({ error: result.error ?? result.status, reason_codes: result.reason_codes }),
        trust: 'untrusted',
        tool_name: plan.tool,
      });
      return;
    }
    const id = `${plan.tool}:${this.evidence.size}`;
    this.register(id, plan.tool, result.output, sortedJson(result.output));
    this.messages.push({
      role: 'tool',
      content: sortedJson({ evidence_id: id, result: result.output }),
      trust: 'untrusted',
      tool_name: plan.tool,
    });
  }

  private async formFinding(): Promise<void> {
    const plan = this.validate('form_finding', FindingPlan, await this.ask('form_finding'));
    this.finding = checkedFinding(plan, this.evidence);
    this.messages.push({
      role: 'assistant',
      content: sortedJson({
        summary: plan.summary,
        claims: plan.claims,
        techniques: plan.techniques,
        confidence: plan.confidence,
      }),
      trust: 'untrusted',
      tool_name: null,
    });
  }

  private async proposeAction(): Promise<void> {
    const plan = this.validate('propose_action', ToolPlan, await this.ask('propose_action'));
    // The tool is deliberately not checked against a registry here: unknown tools reach the port and are
    // rejected there (and recorded).
    const cited = [...new Set(plan.evidence_ids)].filter((id) => this.evidence.has(id));
    const refs = cited.length > 0 ? this.issued(cited) : [this.alertRef()];
    const { proposal, result } = await this.propose(
      plan.tool,
      plan.arguments,
      refs,
      plan.rationale?.trim() ? plan.rationale : 'no rationale given',
    );
    this.recommended = proposal;
    this.actionResult = result;
  }
}
