import { toError } from '@aeh/harness/errors';
import { z } from 'zod';
import { contentHash, sortedJson } from '../contracts/canonical.js';
import { formatZodIssues, IDENTIFIER_PATTERN, newUuid } from '../contracts/common.js';
import type { InvestigationStatus, Stage } from '../contracts/enums.js';
import { ALERT_EVIDENCE_ID, checkedFinding, type Finding, InvestigationResult } from '../contracts/investigation.js';
import { CanonicalModelEvent } from '../contracts/model-turns.js';
import {
  ActionProposal,
  type EvidenceRef,
  EvidenceRef as EvidenceRefSchema,
  type ProposalResult,
} from '../contracts/proposals.js';
import { isStateChangingTool } from '../contracts/tools.js';
import type { ProposalPort } from '../orchestrator/port.js';
import { GET_ACTION_STATUS, SUBMIT_FINDING, TASK_TEXT, TASK_TEXT_WITHOUT_LABELS } from './catalog.js';

/**
 * One MCP run: the agent's every `tools/call` is mediated here. Simulator tools (and unknown ones) become an
 * ActionProposal through the same port the orchestrator uses, so baseline executes them directly and protected
 * mode sends them through gateway, policy, approvals, grant and executor; the MCP layer never touches the
 * simulator. Lab tools (`submit_finding`, `get_action_status`) are answered here. Every call is recorded as one
 * agent turn (persisted on the run's chain as `model.turn`), and the port's results as the orchestrator's are.
 */

/** Limits of one MCP run; crossing any of them ends the run as `limit_exceeded`. */
export const McpLimits = z.strictObject({
  /** tools/call requests the agent may make (lab tools included). */
  max_calls: z.number().int().positive().default(60),
  /** Wall-clock budget of the run, from the session's creation. */
  max_seconds: z.number().positive().default(120),
  /** Bytes of one call's JSON arguments. */
  max_argument_bytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024),
});
export type McpLimits = z.infer<typeof McpLimits>;
export type McpLimitsInput = z.input<typeof McpLimits>;

export interface McpRunOptions {
  incidentId: string;
  /** The alert as presented to the agent (untrusted). */
  alert: Readonly<Record<string, unknown>>;
  /** The only tool interface: every simulator tool call crosses `port.propose`. */
  port: ProposalPort;
  runId: string;
  traceId: string;
  /** Provider id and model label recorded on proposals and turns (e.g. `mcp` / `agent`). */
  providerId: string;
  model: string;
  agentId?: string;
  delegatedUserId?: string;
  limits?: McpLimitsInput;
  /** false only for the `labels` ablation: results, alert and task without the untrusted-data marking. */
  labelUntrusted?: boolean;
  signal?: AbortSignal;
  onTurn?: (event: CanonicalModelEvent) => void;
  onProposal?: (proposal: ActionProposal, result: ProposalResult) => void;
}

/** What a tools/call answers (the MCP CallToolResult shape). */
export interface LabToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Reason codes the MCP layer itself gives (the control plane's codes come from the port). */
export type McpRefusalCode =
  | 'malformed_call'
  | 'invalid_finding'
  | 'unknown_action'
  | 'run_finished'
  | 'limit_exceeded'
  | 'port_error';

const FindingArgs = z.strictObject({
  summary: z.string().trim().min(1).max(2000),
  claims: z
    .array(
      z.strictObject({
        text: z.string().trim().min(1).max(2000),
        evidence_ids: z.array(z.string().min(1).max(200)).max(50),
      }),
    )
    .max(50),
  techniques: z.array(z.string().trim().max(50)).max(50),
  confidence: z.number().min(0).max(1),
});

const ActionStatusArgs = z.strictObject({ action_id: z.string().min(1).max(100) });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function textResult(structured: Record<string, unknown>, isError = false): LabToolResult {
  return {
    content: [{ type: 'text', text: sortedJson(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

/** A refusal the agent sees: the text starts with the reason code. */
function refusal(code: string, detail: string, extra: Record<string, unknown> = {}): LabToolResult {
  const structured = { refused: true, reason_codes: [code], detail, ...extra };
  return {
    content: [{ type: 'text', text: `${code}: ${detail}` }],
    structuredContent: structured,
    isError: true,
  };
}

export class McpRunSession {
  readonly runId: string;
  readonly limits: McpLimits;
  /** Resolves once the run has ended (finding submitted, limit, abort, or `end()`). */
  readonly done: Promise<void>;
  private readonly resolveDone: () => void;
  private readonly agentId: string;
  private readonly delegatedUserId: string;
  private readonly evidence = new Map<string, EvidenceRef>();
  private readonly events: CanonicalModelEvent[] = [];
  private readonly proposals: { proposal: ActionProposal; result: ProposalResult }[] = [];
  private readonly actions = new Map<string, { tool: string; result: ProposalResult }>();
  private readonly stages: Stage[] = [];
  private readonly startedMs = performance.now();
  private readonly timer: NodeJS.Timeout;
  private finding: Finding | null = null;
  private recommended: { proposal: ActionProposal; result: ProposalResult } | null = null;
  private status: InvestigationStatus | null = null;
  private failure: string | null = null;
  private calls = 0;
  private callStartedAt = new Date().toISOString();
  /** Calls are handled one at a time, in arrival order, so counters, evidence ids and the chain stay exact. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: McpRunOptions) {
    this.runId = o.runId;
    this.limits = McpLimits.parse(o.limits ?? {});
    this.agentId = o.agentId ?? 'soc-investigator';
    this.delegatedUserId = o.delegatedUserId ?? 'analyst-1';
    // The executor runs synchronously, so `settle` is the promise's resolver by the time it is stored.
    let settle = (): void => undefined;
    this.done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.resolveDone = settle;
    const title = typeof o.alert.title === 'string' && o.alert.title.trim() ? o.alert.title : 'alert';
    this.register(ALERT_EVIDENCE_ID, 'alert', o.alert, title);
    this.timer = setTimeout(
      () => this.end('incomplete', `limit_exceeded: wall-clock budget of ${this.limits.max_seconds} s`),
      this.limits.max_seconds * 1000,
    );
    this.timer.unref();
    o.signal?.addEventListener('abort', () => this.end('incomplete', 'aborted: the run was cancelled'), {
      once: true,
    });
  }

  /** True once the run has ended; later calls are refused with `run_finished`. */
  get finished(): boolean {
    return this.status !== null;
  }

  get callsMade(): number {
    return this.calls;
  }

  /** The alert as the agent reads it (prompt and resource): untrusted data with its evidence id. */
  alertDocument(): Record<string, unknown> {
    return this.label({ evidence_id: ALERT_EVIDENCE_ID, incident_id: this.o.incidentId, alert: this.o.alert });
  }

  taskText(): string {
    return this.o.labelUntrusted === false ? TASK_TEXT_WITHOUT_LABELS : TASK_TEXT;
  }

  /** Mark data as untrusted, as the HTTP contract does (unless the `labels` ablation removes the marking). */
  private label(data: Record<string, unknown>): Record<string, unknown> {
    return this.o.labelUntrusted === false ? data : { trust: 'untrusted', ...data };
  }

  /** End the run from outside (agent exited, budget, cancellation). The first end wins. */
  end(status: InvestigationStatus, reason: string | null): void {
    if (this.status !== null) return;
    this.status = status;
    this.failure = reason;
    clearTimeout(this.timer);
    this.resolveDone();
  }

  /** Handle one `tools/call`. Never throws: every problem is a tool error whose text starts with its reason code. */
  callTool(name: unknown, args: unknown): Promise<LabToolResult> {
    const next = this.queue.then(() => this.handle(name, args));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async handle(name: unknown, args: unknown): Promise<LabToolResult> {
    const started = performance.now();
    // The turn is dated when the call arrived, so a replay shows it before the proposal it caused.
    this.callStartedAt = new Date().toISOString();
    if (this.status !== null) {
      return refusal('run_finished', 'the run has ended; no further calls are accepted');
    }
    this.calls += 1;
    const tool = typeof name === 'string' ? name : '';
    const argText = args === undefined ? '{}' : (JSON.stringify(args) ?? 'null');
    const argBytes = Buffer.byteLength(argText, 'utf8');
    const elapsed = (performance.now() - this.startedMs) / 1000;
    // Limits first: a call over budget is refused before anything reads its arguments.
    const limit =
      this.calls > this.limits.max_calls
        ? `call budget of ${this.limits.max_calls} calls`
        : elapsed > this.limits.max_seconds
          ? `wall-clock budget of ${this.limits.max_seconds} s`
          : argBytes > this.limits.max_argument_bytes
            ? `argument size limit of ${this.limits.max_argument_bytes} bytes (got ${argBytes})`
            : null;
    if (limit !== null) {
      this.turn(tool.slice(0, 100), null, 'limit_exceeded', { limit }, started);
      this.end('incomplete', `limit_exceeded: ${limit}`);
      return refusal('limit_exceeded', `${limit}; the run has ended`);
    }
    if (!IDENTIFIER_PATTERN.test(tool) || tool.length > 100) {
      this.turn(null, null, 'malformed_call', { name: typeof name === 'string' ? name.slice(0, 100) : null }, started);
      return refusal('malformed_call', 'the tool name must match ^[a-z][a-z0-9_]*$');
    }
    const argObject = args === undefined ? {} : args;
    if (!isObject(argObject)) {
      this.turn(tool, null, 'malformed_call', {}, started);
      return refusal('malformed_call', 'arguments must be a JSON object');
    }
    if (tool === SUBMIT_FINDING) return this.submitFinding(argObject, started);
    if (tool === GET_ACTION_STATUS) return this.actionStatus(argObject, started);
    return this.propose(tool, argObject, started);
  }

  private async propose(tool: string, args: Record<string, unknown>, started: number): Promise<LabToolResult> {
    const stateChanging = isStateChangingTool(tool);
    // A read cites the alert; a response action cites everything the agent has been shown so far.
    const alert = this.evidence.get(ALERT_EVIDENCE_ID);
    // The alert is registered when the session is built, so a read always has it to cite.
    if (!alert) throw new Error('the alert evidence is not registered');
    const refs = stateChanging ? [...this.evidence.values()] : [alert];
    const parsed = ActionProposal.safeParse({
      agent_id: this.agentId,
      delegated_user_id: this.delegatedUserId,
      incident_id: this.o.incidentId,
      tool_name: tool,
      arguments: args,
      evidence_refs: refs,
      rationale: `MCP tools/call ${tool}`,
      provider: this.o.providerId,
      model: this.o.model,
      trace_id: this.o.traceId,
    });
    if (!parsed.success) {
      this.turn(tool, args, 'malformed_call', { issues: formatZodIssues(parsed.error) }, started);
      return refusal('malformed_call', formatZodIssues(parsed.error).slice(0, 500));
    }
    const proposal = parsed.data;
    let result: ProposalResult;
    try {
      result = await this.o.port.propose(proposal);
    } catch (error) {
      // The port should never throw; if it does, nothing is known to have executed and the agent is told so.
      this.turn(tool, args, 'port_error', { error: toError(error).name }, started);
      return refusal('port_error', 'the control plane could not process the call');
    }
    this.proposals.push({ proposal, result });
    this.o.onProposal?.(proposal, result);
    this.actions.set(proposal.proposal_id, { tool, result });
    if (stateChanging) this.recommended = { proposal, result };
    const reasons = [...result.reason_codes];
    this.turn(
      tool,
      args,
      result.status === 'executed' || result.status === 'awaiting_approval' ? null : 'refused',
      {
        status: result.status,
        reason_codes: reasons,
      },
      started,
    );
    if (result.status === 'executed' && result.output !== null) {
      const id = `${tool}:${this.evidence.size}`;
      this.register(id, tool, result.output, sortedJson(result.output));
      return textResult(this.label({ evidence_id: id, tool, result: result.output }));
    }
    if (result.status === 'executed') {
      return textResult(
        this.label({ action_id: proposal.proposal_id, tool, status: 'executed', receipt: result.receipt }),
      );
    }
    if (result.status === 'awaiting_approval' || result.status === 'proposed') {
      return textResult({ action_id: proposal.proposal_id, tool, status: result.status, reason_codes: reasons });
    }
    const code = reasons[0] ?? result.status;
    return {
      content: [
        {
          type: 'text',
          text: `${code}: ${tool} ${result.status}${reasons.length > 1 ? ` (${reasons.join(', ')})` : ''}`,
        },
      ],
      structuredContent: { action_id: proposal.proposal_id, tool, status: result.status, reason_codes: reasons },
      isError: true,
    };
  }

  private submitFinding(args: Record<string, unknown>, started: number): LabToolResult {
    const parsed = FindingArgs.safeParse(args);
    if (!parsed.success) {
      const issues = formatZodIssues(parsed.error);
      this.turn(SUBMIT_FINDING, args, 'invalid_finding', { issues }, started);
      return refusal('invalid_finding', issues.slice(0, 500));
    }
    const finding = checkedFinding(parsed.data, this.evidence);
    this.finding = finding;
    this.turn(SUBMIT_FINDING, args, null, { accepted: true }, started, 'stop');
    this.stages.push('complete');
    this.end('complete', null);
    return textResult({
      accepted: true,
      claims_total: finding.claims.length,
      claims_supported: finding.claims.filter((c) => c.supported).length,
    });
  }

  private actionStatus(args: Record<string, unknown>, started: number): LabToolResult {
    const parsed = ActionStatusArgs.safeParse(args);
    if (!parsed.success) {
      this.turn(GET_ACTION_STATUS, args, 'malformed_call', {}, started);
      return refusal('malformed_call', formatZodIssues(parsed.error).slice(0, 500));
    }
    // Only ids this run issued resolve; a forged or foreign id learns nothing and executes nothing.
    const action = this.actions.get(parsed.data.action_id);
    if (!action) {
      this.turn(GET_ACTION_STATUS, args, 'unknown_action', {}, started);
      return refusal('unknown_action', 'no action with this id was proposed in this run');
    }
    this.turn(GET_ACTION_STATUS, args, null, { status: action.result.status }, started);
    return textResult({
      action_id: parsed.data.action_id,
      tool: action.tool,
      status: action.result.status,
      reason_codes: [...action.result.reason_codes],
    });
  }

  private register(id: string, sourceTool: string, content: unknown, summary: string): void {
    this.evidence.set(
      id,
      EvidenceRefSchema.parse({
        evidence_id: id,
        source_tool: sourceTool,
        incident_id: this.o.incidentId,
        trust: 'untrusted',
        content_hash: contentHash(content),
        summary: summary.trim() === '' ? sourceTool : summary.slice(0, 500),
      }),
    );
  }

  /** Record one call as an agent turn (on the chain as `model.turn`). */
  private turn(
    tool: string | null,
    args: Record<string, unknown> | null,
    error: string | null,
    detail: Record<string, unknown>,
    started: number,
    finish: 'tool_proposal' | 'stop' | 'error' = error === null || error === 'refused' ? 'tool_proposal' : 'error',
  ): void {
    const event = CanonicalModelEvent.parse({
      trace_id: this.o.traceId,
      run_id: this.runId,
      incident_id: this.o.incidentId,
      agent_id: this.agentId,
      delegated_user_id: this.delegatedUserId,
      provider: this.o.providerId,
      model: this.o.model,
      finish_reason: finish,
      output_text: sortedJson({ mcp: 'tools/call', call: this.calls, tool, ...detail }),
      proposed_tool: tool,
      validated_arguments: tool === null ? null : args,
      usage: { input_tokens: 0, output_tokens: 0, estimated: true },
      estimated_cost_usd: null,
      cost_is_estimated: true,
      latency_ms: Math.max(0, performance.now() - started),
      error: error === 'refused' ? null : error,
      created_at: this.callStartedAt,
    });
    this.events.push(event);
    this.o.onTurn?.(event);
  }

  /** The run as the scenario runner scores it (same shape as the orchestrator's). */
  result(): InvestigationResult {
    return InvestigationResult.parse({
      run_id: this.runId,
      trace_id: this.o.traceId,
      incident_id: this.o.incidentId,
      status: this.status ?? 'incomplete',
      stages_completed: this.stages,
      evidence: [...this.evidence.values()],
      finding: this.finding,
      recommended_action: this.recommended?.proposal ?? null,
      action_result: this.recommended?.result ?? null,
      proposals: this.proposals,
      executions: this.proposals.map((p) => p.result).filter((r) => r.receipt !== null),
      tool_outputs: this.proposals.map((p) => p.result).filter((r) => r.output !== null),
      events: this.events,
      failure_reason: this.status === null ? 'the agent never submitted a finding' : this.failure,
    });
  }
}

/** A fresh trace id for a run (`trace-` + 12 hex characters of the run id). */
export const mcpTraceId = (runId: string): string => `trace-${runId.replace(/-/g, '').slice(0, 12) || newUuid()}`;
