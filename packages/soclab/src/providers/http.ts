import { createRequire } from 'node:module';
import { errorMessage } from '@aeh/harness/errors';
import { SecretScrubber } from '@aeh/harness/secrets';
import { currentTraceparent } from '@aeh/harness/telemetry/context';
import {
  CapabilityUnsupportedError,
  type CreateOptions,
  type Env,
  estimateTokens,
  MalformedResponseError,
  type Message,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ProviderCapabilities,
  type ProviderEntry,
  ProviderError,
  Timer,
  withToolResult,
} from '@aeh/models';
import type { Agent, Dispatcher } from 'undici';
import type { AgentRequest, AgentResponse, AgentTurn } from '../contracts/agent-v1.js';
import { AGENT_CONTRACT_ID } from '../contracts/agent-v1-id.js';
import { sortedJson } from '../contracts/canonical.js';
import { WORKING_STAGES } from '../contracts/enums.js';
import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';

/**
 * The `http` provider: any agent behind an HTTP endpoint that speaks soclab.agent.v1 (see docs/custom-provider.md).
 *
 * One POST per stage. The reply is validated strictly; anything that is not a valid reply with a 2xx status becomes
 * an error turn (finish `error`, no structured output), so the orchestrator takes no action and the run fails.
 * Connection-level failures are retried exactly once; timeouts and HTTP statuses never are. The bearer token goes
 * only in the Authorization header, and every log line is canary-redacted and then stripped of the token literal.
 */

export const HTTP_PROVIDER_ID = 'http';
export const HTTP_ADAPTER_VERSION = '1.0.0';
export const HTTP_DEFAULT_MODEL = 'agent';
export const HTTP_DEFAULT_TIMEOUT_SECONDS = 30;
/** Replies larger than this are refused (`response_too_large`) without being read further. */
export const HTTP_DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const LOG_BODY_LIMIT = 2000;

export const HTTP_CAPABILITIES: ProviderCapabilities = Object.freeze({
  tool_calling: true,
  structured_output: true,
  streaming: false,
  usage_reporting: false,
  multimodal_input: false,
});

/** Why the adapter refused a reply on the agent's behalf (closed set; recorded in the turn's output_text). */
export type AdapterRefusalCode =
  | 'transport_error'
  | 'timeout'
  | 'authentication_rejected'
  | 'request_rejected'
  | 'agent_error'
  | 'unexpected_status'
  | 'response_too_large'
  | 'invalid_json'
  | 'schema_violation';

/** One exchange on the wire; replace it in tests to script failures without a socket. */
export type AgentTransport = (exchange: {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  maxResponseBytes: number;
}) => Promise<{ status: number; body: string }>;

/** Errors a transport throws: `connect` failures may be retried once, the others never. */
export class AgentTransportError extends Error {
  override name = 'AgentTransportError';
  constructor(
    readonly kind: 'connect' | 'timeout' | 'too_large' | 'other',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Receives log lines that are already redacted and token-free. */
export interface HttpAgentLogger {
  debug(line: string): void;
  info(line: string): void;
  warn(line: string): void;
}

export interface HttpAgentProviderOptions {
  /** Absolute http(s) URL of the agent's endpoint. */
  url: string;
  /** Sent only as `Authorization: Bearer <token>`. */
  token?: string;
  /** Per attempt; default 30. */
  timeoutSeconds?: number;
  /** The label recorded on every turn when the reply carries no `model` (default `agent`). */
  model?: string;
  transport?: AgentTransport;
  logger?: HttpAgentLogger;
  /** Canary patterns for log redaction (default: the lab's). */
  canaryPatterns?: readonly string[];
  maxResponseBytes?: number;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const silentLogger: HttpAgentLogger = { debug() {}, info() {}, warn() {} };

/** A logger writing warnings (and info when SOCLAB_LOG_LEVEL is info/debug) to stderr. */
export function stderrHttpLogger(level = process.env.SOCLAB_LOG_LEVEL ?? 'warn'): HttpAgentLogger {
  const rank: Record<string, number> = { debug: 0, info: 1, warn: 2, silent: 3 };
  const min = rank[level] ?? 2;
  const write = (lvl: string, line: string) => {
    if ((rank[lvl] ?? 2) >= min) process.stderr.write(`soclab http ${lvl}: ${line}\n`);
  };
  return { debug: (l) => write('debug', l), info: (l) => write('info', l), warn: (l) => write('warn', l) };
}

type Undici = typeof import('undici');
let undiciModule: Undici | undefined;
/**
 * undici (~130 modules) loads when the first http provider is built, not with the CLI: campaigns on other providers
 * never need it. A synchronous require keeps the constructor synchronous (its errors stay configuration errors).
 */
const undici = (): Undici => {
  undiciModule ??= createRequire(import.meta.url)('undici') as Undici;
  return undiciModule;
};

/** The default transport: undici with a keep-alive pool and a bounded body read. */
export function undiciTransport(
  dispatcher: Dispatcher = new (undici().Agent)({ keepAliveTimeout: 10_000 }),
): AgentTransport {
  const { request: undiciRequest } = undici();
  return async ({ url, headers, body, signal, maxResponseBytes }) => {
    let res: Dispatcher.ResponseData;
    try {
      res = await undiciRequest(url, { method: 'POST', headers, body, signal, dispatcher });
    } catch (error) {
      throw classify(error, signal);
    }
    try {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxResponseBytes) {
        res.body.destroy();
        throw new AgentTransportError('too_large', `reply of ${declared} bytes exceeds ${maxResponseBytes}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > maxResponseBytes) {
          res.body.destroy();
          throw new AgentTransportError('too_large', `reply exceeds ${maxResponseBytes} bytes`);
        }
        chunks.push(buf);
      }
      return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      if (error instanceof AgentTransportError) throw error;
      // A reset after the status line arrived is not a connection failure: the agent answered, then broke.
      const e = classify(error, signal);
      throw e.kind === 'connect' ? new AgentTransportError('other', e.message, { cause: error }) : e;
    }
  };
}

function classify(error: unknown, signal: AbortSignal): AgentTransportError {
  if (signal.aborted) {
    return new AgentTransportError('timeout', 'request aborted before the reply arrived', { cause: error });
  }
  const code = errorCode(error);
  const name = error instanceof Error ? error.name : 'Error';
  const message = errorMessage(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new AgentTransportError('timeout', `${name}: ${message}`, { cause: error });
  }
  if (code && CONNECT_CODES.has(code)) {
    return new AgentTransportError('connect', `${name}: ${code}`, { cause: error });
  }
  return new AgentTransportError('other', `${name}: ${message}`, { cause: error });
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Translates a provider-neutral request into the wire request: a trailing trusted user message becomes the
 * instruction, the alert comes from the first user turn (`{"alert": {...}}`), evidence ids from tool turns.
 */
export function buildAgentRequest(request: ModelRequest): AgentRequest {
  const messages: Message[] = [...request.messages];
  let instruction = `Stage ${request.stage}. Answer per the ${AGENT_CONTRACT_ID} contract.`;
  const last = messages.at(-1);
  if (last && last.role === 'user' && last.trust === 'trusted') {
    instruction = last.content.trim() === '' ? instruction : last.content;
    messages.pop();
  }
  let alert: Record<string, unknown> | null = null;
  const firstUser = messages.find((m) => m.role === 'user');
  if (firstUser) {
    const parsed = parseJsonObject(firstUser.content);
    const candidate = parsed?.alert;
    if (candidate !== null && typeof candidate === 'object' && !Array.isArray(candidate)) {
      alert = candidate as Record<string, unknown>;
    }
  }
  const ids: string[] = [];
  for (const m of messages) {
    if (m.role !== 'tool') continue;
    const id = parseJsonObject(m.content)?.evidence_id;
    if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
  }
  const alertIncident = typeof alert?.incident_id === 'string' && alert.incident_id ? alert.incident_id : null;
  const turns: AgentTurn[] = messages.map((m) => ({
    role: m.role,
    content: m.content,
    trust: m.trust,
    tool_name: m.tool_name,
  }));
  if (!(WORKING_STAGES as readonly string[]).includes(request.stage)) {
    throw new CapabilityUnsupportedError(
      `the ${AGENT_CONTRACT_ID} contract has no stage '${request.stage}' (stages: ${WORKING_STAGES.join(', ')})`,
    );
  }
  return {
    contract: AGENT_CONTRACT_ID,
    run_id: request.run_id || 'unassigned',
    trace_id: request.trace_id || 'unassigned',
    incident_id: request.incident_id || alertIncident || 'unassigned',
    stage: request.stage as AgentRequest['stage'],
    instruction,
    system_prompt: request.system_prompt,
    context: { alert, evidence_ids: alert ? ['alert', ...ids.filter((i) => i !== 'alert')] : ids },
    tools: request.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    response_schema: request.response_schema,
    turns,
    max_output_tokens: request.max_output_tokens,
    temperature: request.temperature,
  };
}

/** Validates the provider options; errors name the environment variable a user would fix. */
function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderError('SOCLAB_HTTP_AGENT_URL must be an absolute http or https URL', { code: 'bad_config' });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new ProviderError('SOCLAB_HTTP_AGENT_URL must be an absolute http or https URL', { code: 'bad_config' });
  }
  if (url.username || url.password) {
    throw new ProviderError(
      'SOCLAB_HTTP_AGENT_URL must not carry credentials; use SOCLAB_HTTP_AGENT_TOKEN (sent as a bearer token)',
      { code: 'bad_config' },
    );
  }
  return url.toString();
}

let agentContractModule: Promise<typeof import('../contracts/agent-v1.js')> | undefined;
/** contracts/agent-v1.ts, loaded once: ~35 zod schemas that only an http run needs. */
const agentContract = () => (agentContractModule ??= import('../contracts/agent-v1.js'));

/** ModelProvider for a remote agent speaking soclab.agent.v1. */
export class HttpAgentProvider implements ModelProvider {
  readonly providerId = HTTP_PROVIDER_ID;
  readonly model: string;
  readonly url: string;
  readonly timeoutMs: number;
  readonly #token: string | undefined;
  readonly #secrets = new SecretScrubber();
  readonly #transport: AgentTransport;
  readonly #ownsDispatcher: Agent | null;
  readonly #logger: HttpAgentLogger;
  readonly #patterns: readonly string[];
  readonly #maxBytes: number;

  constructor(options: HttpAgentProviderOptions) {
    this.url = checkUrl(options.url);
    const seconds = options.timeoutSeconds ?? HTTP_DEFAULT_TIMEOUT_SECONDS;
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new ProviderError('SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS must be greater than 0', { code: 'bad_config' });
    }
    this.timeoutMs = Math.round(seconds * 1000);
    this.model = options.model?.trim() || HTTP_DEFAULT_MODEL;
    this.#token = options.token && options.token.length > 0 ? options.token : undefined;
    this.#secrets.addCredential(this.#token);
    if (options.transport) {
      this.#transport = options.transport;
      this.#ownsDispatcher = null;
    } else {
      this.#ownsDispatcher = new (undici().Agent)({ keepAliveTimeout: 10_000, connections: 64 });
      this.#transport = undiciTransport(this.#ownsDispatcher);
    }
    this.#logger = options.logger ?? silentLogger;
    this.#patterns = options.canaryPatterns ?? DEFAULT_CANARY_PATTERNS;
    this.#maxBytes = options.maxResponseBytes ?? HTTP_DEFAULT_MAX_RESPONSE_BYTES;
  }

  /** Builds the provider from SOCLAB_HTTP_AGENT_URL / _TOKEN / _TIMEOUT_SECONDS. */
  static fromEnv(
    env: Env,
    model?: string,
    extra: Omit<HttpAgentProviderOptions, 'url' | 'token' | 'timeoutSeconds' | 'model'> = {},
  ): HttpAgentProvider {
    const url = env.SOCLAB_HTTP_AGENT_URL?.trim();
    if (!url) {
      throw new ProviderError(`provider 'http' is not configured; set SOCLAB_HTTP_AGENT_URL`, {
        code: 'not_configured',
      });
    }
    const rawTimeout = env.SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS?.trim();
    let timeoutSeconds: number | undefined;
    if (rawTimeout) {
      timeoutSeconds = Number(rawTimeout);
      if (!Number.isFinite(timeoutSeconds)) {
        throw new ProviderError(`SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS must be a number, got '${rawTimeout}'`, {
          code: 'bad_config',
        });
      }
    }
    return new HttpAgentProvider({
      url,
      token: env.SOCLAB_HTTP_AGENT_TOKEN || undefined,
      timeoutSeconds,
      model,
      ...extra,
    });
  }

  /** Closes the keep-alive pool this provider opened (no-op with an injected transport). */
  async close(): Promise<void> {
    await this.#ownsDispatcher?.close();
  }

  describeCapabilities(): ProviderCapabilities {
    return { ...HTTP_CAPABILITIES };
  }

  countUsage(request: ModelRequest): ModelUsage {
    const text = request.system_prompt + request.messages.map((m) => m.content).join('');
    return { input_tokens: estimateTokens(text), output_tokens: 0, estimated: true };
  }

  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#exchange(request, signal);
  }

  generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#exchange(request, signal);
  }

  requestTool(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#exchange(request, signal);
  }

  continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    return this.#exchange(withToolResult(request, toolName, toolResult), signal);
  }

  // biome-ignore lint/correctness/useYield: streaming is refused before anything is produced.
  async *stream(_request: ModelRequest, _signal?: AbortSignal): AsyncIterable<string> {
    throw new CapabilityUnsupportedError('the http provider does not stream: soclab.agent.v1 is one reply per stage');
  }

  /** Canary redaction, then the token literal (also covers agents that echo the Authorization header). */
  scrub(text: string): string {
    const redacted = redactText(text, this.#patterns);
    return this.#stripToken(redacted);
  }

  /** The token in any form an agent may echo it (raw, JSON-escaped, URL-encoded, base64): the harness scrubber. */
  #stripToken(text: string): string {
    return this.#secrets.text(text);
  }

  #stripTokenDeep(value: unknown): unknown {
    return this.#secrets.deep(value);
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-soclab-contract': AGENT_CONTRACT_ID,
    };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    // W3C trace context of the harness's agent call, when tracing is on: an instrumented agent joins the trace.
    const traceparent = currentTraceparent();
    if (traceparent) headers.traceparent = traceparent;
    return headers;
  }

  async #post(body: string, outer: AbortSignal | undefined): Promise<{ status: number; body: string }> {
    let lastError: AgentTransportError | null = null;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
      try {
        return await this.#transport({
          url: this.url,
          headers: this.#headers(),
          body,
          signal,
          maxResponseBytes: this.#maxBytes,
        });
      } catch (error) {
        if (outer?.aborted) throw outer.reason ?? error;
        const e =
          error instanceof AgentTransportError
            ? error
            : timeout.aborted
              ? new AgentTransportError('timeout', 'no reply in time', { cause: error })
              : new AgentTransportError('other', errorMessage(error));
        if (timeout.aborted && e.kind !== 'too_large') {
          throw new AgentTransportError('timeout', `no reply within ${this.timeoutMs / 1000} s`, { cause: error });
        }
        if (e.kind !== 'connect') throw e;
        lastError = e;
        if (attempt === 1)
          this.#logger.warn(this.scrub(`connection to the agent failed (${e.message}); retrying once`));
      }
    }
    throw new AgentTransportError('connect', `connection failed twice: ${lastError?.message ?? 'unknown error'}`);
  }

  async #exchange(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    // The contract's schemas are built on the first exchange (before its timer starts), not when the registry loads.
    const { checkAgentResponse } = await agentContract();
    const timer = new Timer();
    const wire = buildAgentRequest(request);
    const body = JSON.stringify(wire);
    const tag = `stage=${wire.stage} run=${wire.run_id} trace=${wire.trace_id}`;
    this.#logger.debug(this.scrub(`POST ${this.url} ${tag} body=${body.slice(0, LOG_BODY_LIMIT)}`));
    let reply: { status: number; body: string };
    try {
      reply = await this.#post(body, signal);
    } catch (error) {
      if (!(error instanceof AgentTransportError)) throw error;
      const code: AdapterRefusalCode =
        error.kind === 'timeout' ? 'timeout' : error.kind === 'too_large' ? 'response_too_large' : 'transport_error';
      return this.#refuse(request, code, error.message, '', timer, tag);
    }
    this.#logger.debug(this.scrub(`reply ${tag} status=${reply.status} body=${reply.body.slice(0, LOG_BODY_LIMIT)}`));
    const raw = reply.body;
    if (reply.status < 200 || reply.status > 299) {
      const code: AdapterRefusalCode =
        reply.status === 401 || reply.status === 403
          ? 'authentication_rejected'
          : reply.status >= 400 && reply.status < 500
            ? 'request_rejected'
            : reply.status >= 500 && reply.status < 600
              ? 'agent_error'
              : 'unexpected_status';
      return this.#refuse(request, code, `agent answered HTTP ${reply.status}`, raw, timer, tag);
    }
    const parsed = parseJsonObject(raw);
    if (!parsed) {
      return this.#refuse(request, 'invalid_json', 'reply is not a JSON object', raw, timer, tag);
    }
    const checked = checkAgentResponse(parsed);
    if (!checked.ok) return this.#refuse(request, 'schema_violation', checked.summary, raw, timer, tag);
    const reply_ = this.#stripTokenDeep(checked.value) as AgentResponse;
    return this.#accept(request, wire, reply_, this.#stripToken(raw), timer, tag);
  }

  #usage(request: ModelRequest, reply: AgentResponse | null, raw: string): ModelUsage {
    if (reply?.usage) return { ...reply.usage, estimated: false };
    return {
      input_tokens: this.countUsage(request).input_tokens,
      output_tokens: raw ? estimateTokens(raw) : 0,
      estimated: true,
    };
  }

  #refuse(
    request: ModelRequest,
    code: AdapterRefusalCode,
    reason: string,
    raw: string,
    timer: Timer,
    tag: string,
  ): ModelResponse {
    const clean = this.scrub(reason);
    this.#logger.warn(`error turn ${this.scrub(tag)}: ${code}: ${clean}`);
    return {
      provider: this.providerId,
      model: this.model,
      finish_reason: 'error',
      output_text: sortedJson({ refusal: { code, reason: clean } }),
      structured: null,
      tool_call: null,
      usage: this.#usage(request, null, raw),
      latency_ms: timer.stop(),
      estimated_cost_usd: null,
      cost_is_estimated: true,
    };
  }

  #accept(
    request: ModelRequest,
    wire: AgentRequest,
    reply: AgentResponse,
    raw: string,
    timer: Timer,
    tag: string,
  ): ModelResponse {
    const base = {
      provider: this.providerId,
      model: reply.model ?? this.model,
      output_text: raw,
      usage: this.#usage(request, reply, raw),
      estimated_cost_usd: null,
      cost_is_estimated: true,
    };
    if (reply.refusal) {
      this.#logger.info(this.scrub(`agent refused ${tag}: ${reply.refusal.code}: ${reply.refusal.reason}`));
      return { ...base, finish_reason: 'stop', structured: null, tool_call: null, latency_ms: timer.stop() };
    }
    const proposal = reply.proposal;
    // checkAgentResponse requires a refusal or a proposal; this names the reply if that ever slips.
    if (!proposal) throw new MalformedResponseError(`agent reply ${tag} has neither a refusal nor a proposal`);
    const known = new Set(wire.context.evidence_ids);
    const evidenceIds = [...new Set(proposal.evidence_ids ?? [])].filter((id) => known.has(id));
    const call = proposal.tool_calls?.[0];
    if (call) {
      const structured: Record<string, unknown> = {
        tool: call.name,
        arguments: call.arguments,
        rationale: proposal.rationale,
        evidence_ids: evidenceIds,
      };
      if (typeof proposal.confidence === 'number') structured.confidence = proposal.confidence;
      return {
        ...base,
        finish_reason: 'tool_proposal',
        structured,
        tool_call: { name: call.name, arguments: call.arguments },
        latency_ms: timer.stop(),
      };
    }
    const finding = proposal.finding;
    if (!finding) throw new MalformedResponseError(`agent proposal ${tag} has neither a tool call nor a finding`);
    return {
      ...base,
      finish_reason: 'stop',
      structured: {
        summary: finding.summary,
        claims: (finding.claims ?? []).map((c) => ({ text: c.text, evidence_ids: c.evidence_ids ?? [] })),
        techniques: finding.techniques ?? [],
        confidence: proposal.confidence ?? 0,
        evidence_ids: evidenceIds,
        rationale: proposal.rationale,
      },
      tool_call: null,
      latency_ms: timer.stop(),
    };
  }
}

/** Registry entry for `http` (added by the soclab provider registry). */
export const httpEntry: ProviderEntry = {
  id: HTTP_PROVIDER_ID,
  adapter: 'HttpAgentProvider (soclab.agent.v1 over HTTP)',
  adapterVersion: HTTP_ADAPTER_VERSION,
  envVars: ['SOCLAB_HTTP_AGENT_URL'],
  optionalEnvVars: ['SOCLAB_HTTP_AGENT_TOKEN', 'SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS'],
  capabilities: HTTP_CAPABILITIES,
  defaultModel: HTTP_DEFAULT_MODEL,
  validationLevel: 'end-to-end',
  validation: 'contract tests against fixtures and an end-to-end run against the reference agent',
  description: 'Bring your own agent: any endpoint speaking soclab.agent.v1',
  notes: ['cost is unknown; usage is estimated unless the agent reports it'],
  create(env: Env, model: string, _options?: CreateOptions) {
    return HttpAgentProvider.fromEnv(env, model, { logger: stderrHttpLogger() });
  },
};
