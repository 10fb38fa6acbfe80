// Error classes and types come from the small provider-spec package; the vendor SDKs load on first call.
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  type JSONSchema7,
  type LanguageModelV3,
  NoContentGeneratedError,
  TypeValidationError,
} from '@ai-sdk/provider';
import {
  CapabilityUnsupportedError,
  type FinishReason,
  MalformedResponseError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ProviderCapabilities,
  ProviderError,
  type ToolCall,
} from '../provider.js';
import { labelMessage, withToolResult } from '../shared/messages.js';
import { parseToolArguments } from '../shared/parse.js';
import { buildResponse } from '../shared/response.js';
import { Timer } from '../shared/timer.js';
import { estimateCallUsage, estimateRequestUsage } from '../shared/tokens.js';

/*
 * The shared engine behind every vendor adapter. It talks to an AI SDK 6 language model through the provider
 * specification (doGenerate / doStream) so that nothing is retried, repaired or logged behind our back, and it
 * turns the result into a provider-neutral ModelResponse. AI SDK types never leave this folder.
 */

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type Prompt = CallOptions['prompt'];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** A fetch implementation; inject one to replay recorded vendor payloads in tests. */
export type FetchFunction = typeof globalThis.fetch;

/** Options every vendor adapter accepts. */
export interface VendorAdapterOptions {
  /** Model id; defaults to the registry's default model for the vendor. */
  model?: string;
  /** Custom fetch (tests replay recorded fixtures through it). */
  fetch?: FetchFunction;
  /** Per-call timeout in milliseconds. */
  timeoutMs?: number;
}

/** How a vendor differs; filled by each adapter file. */
export interface VendorProfile {
  providerId: string;
  model: string;
  /** The model, or a loader for it: vendor SDKs take ~0.2 s to import, so they load on the first call. */
  languageModel: LanguageModelV3 | (() => Promise<LanguageModelV3>);
  capabilities: ProviderCapabilities;
  timeoutMs: number;
  /** `response_format`: ask the API for JSON; `system_instruction`: append an instruction to the system prompt. */
  structuredMode: 'response_format' | 'system_instruction';
  /** Gemini rejects JSON mode together with function declarations; send JSON mode only when no tools go out. */
  jsonModeOnlyWithoutTools: boolean;
  /**
   * Whether a request's JSON Schema may go to the API with JSON mode (default true). The OpenAI-compatible adapter
   * (gateways, Azure, Ollama) cannot send one: it would refuse the call, so those get plain JSON mode.
   */
  schemaInResponseFormat?: boolean;
  /** Anthropic and Gemini want alternating turns that start with the user. */
  alternateRoles: boolean;
  /** Take the model name from the reply (OpenAI) or keep the configured one (Gemini). */
  modelFromResponse: boolean;
  /** Fixed cost per call (local models: 0), still labelled estimated; otherwise the price table decides. */
  fixedCostUsd?: number;
  /** Literals that must never appear in an error message (API keys). */
  secrets: readonly string[];
}

const JSON_INSTRUCTION =
  'Respond with a single JSON object and nothing else: no prose, no Markdown fences, no text before or after it.';

type Mode = { structured: boolean; tools: boolean };

function mapFinish(unified: string): FinishReason {
  switch (unified) {
    case 'stop':
      return 'stop';
    case 'tool-calls':
      return 'tool_proposal';
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'error';
  }
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  return out;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/**
 * Whether repeating a call that failed with this HTTP status may succeed: 408 (request timeout), 429 (rate limit)
 * and 5xx. Every other 4xx is a contract error (bad key, bad request, unknown model) and is never retried. (The
 * AI SDK's own `isRetryable` also says yes to 409, which the vendors use for conflicts, not for load.)
 */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The wait a vendor asked for, in seconds: `retry-after-ms` (OpenAI), else `Retry-After` as seconds or an HTTP
 * date. Undefined when absent or unreadable; never negative.
 */
export function retryAfterSeconds(
  headers: Readonly<Record<string, string | undefined>> | undefined,
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) =>
    Object.entries(headers)
      .find(([k]) => k.toLowerCase() === name)?.[1]
      ?.trim();
  const ms = get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const raw = get('retry-after');
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw);
  // Otherwise only an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`); Date.parse would read '-5' as a year.
  if (!/^[A-Za-z]{3}, /.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, (at - Date.now()) / 1000) : undefined;
}

/**
 * True when a JSON Schema meets OpenAI's strict structured-output rules: every object lists its properties, all of
 * them required, with `additionalProperties: false`.
 */
export function strictCompatible(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return true;
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' || s.properties !== undefined) {
    const props = s.properties;
    if (props === null || typeof props !== 'object' || s.additionalProperties !== false) return false;
    const required = Array.isArray(s.required) ? s.required : [];
    if (!Object.keys(props).every((k) => required.includes(k))) return false;
  }
  return Object.entries(s).every(([k, v]) => k === 'required' || k === 'enum' || k === 'const' || strictCompatible(v));
}

function codeForStatus(status: number): string {
  if (status === 401 || status === 403) return 'authentication_rejected';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'provider_unavailable';
  return 'request_rejected';
}

/** Implements ModelProvider for one AI SDK language model according to a VendorProfile. */
export class AiSdkProvider implements ModelProvider {
  readonly providerId: string;
  readonly model: string;
  readonly #p: VendorProfile;

  constructor(profile: VendorProfile) {
    this.#p = profile;
    this.providerId = profile.providerId;
    this.model = profile.model;
  }

  describeCapabilities(): ProviderCapabilities {
    return { ...this.#p.capabilities };
  }

  countUsage(request: ModelRequest): ModelUsage {
    return estimateRequestUsage(request);
  }

  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#call(request, { structured: false, tools: false }, signal);
  }

  generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    if (!this.#p.capabilities.structured_output) {
      return Promise.reject(new CapabilityUnsupportedError(`${this.providerId} does not support structured output`));
    }
    return this.#call(request, { structured: true, tools: request.tools.length > 0 }, signal);
  }

  requestTool(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    if (!this.#p.capabilities.tool_calling) {
      return Promise.reject(new CapabilityUnsupportedError(`${this.providerId} does not support tool calling`));
    }
    if (request.tools.length === 0) {
      return Promise.reject(
        new ProviderError(`${this.providerId}: requestTool needs at least one tool in the request`),
      );
    }
    return this.#call(request, { structured: false, tools: true }, signal);
  }

  continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    return this.generateStructured(withToolResult(request, toolName, toolResult), signal);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<string> {
    if (!this.#p.capabilities.streaming) {
      throw new CapabilityUnsupportedError(`${this.providerId} does not support streaming`);
    }
    const { signal: callSignal, timedOut } = this.#signal(signal);
    let reader: ReadableStreamDefaultReader<unknown> | undefined;
    try {
      const { stream } = await (await this.#model()).doStream(
        this.#options(request, { structured: false, tools: false }, callSignal),
      );
      reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const part = value as { type: string; delta?: string; error?: unknown };
        if (part.type === 'text-delta' && typeof part.delta === 'string') yield part.delta;
        else if (part.type === 'error') throw this.#wrap(part.error, signal, timedOut());
      }
    } catch (error) {
      throw this.#wrap(error, signal, timedOut());
    } finally {
      reader?.releaseLock();
    }
  }

  /** The provider-specification call options for one request (exported to tests through the adapters). */
  #options(request: ModelRequest, mode: Mode, signal: AbortSignal): CallOptions {
    const p = this.#p;
    const sendTools = mode.tools && request.tools.length > 0;
    if (sendTools && !p.capabilities.tool_calling) {
      throw new CapabilityUnsupportedError(`${p.providerId} does not support tool calling`);
    }
    const jsonMode =
      mode.structured && p.structuredMode === 'response_format' && !(p.jsonModeOnlyWithoutTools && sendTools);
    let system = request.system_prompt;
    if (mode.structured && (p.structuredMode === 'system_instruction' || !jsonMode)) {
      system = system ? `${system}\n\n${JSON_INSTRUCTION}` : JSON_INSTRUCTION;
    }
    const options: CallOptions = {
      prompt: this.#prompt(request, system),
      maxOutputTokens: request.max_output_tokens,
      temperature: request.temperature,
      abortSignal: signal,
    };
    // A JSON Schema in the request (e.g. a judge's verdict shape) goes to the API, which then constrains the reply.
    if (jsonMode)
      options.responseFormat =
        request.response_schema && p.schemaInResponseFormat !== false
          ? { type: 'json', schema: request.response_schema as JSONSchema7, name: 'response' }
          : { type: 'json' };
    // OpenAI enforces a schema only in strict mode, and strict mode rejects a schema that leaves any object open
    // (HTTP 400). Open schemas, such as the lab's stage replies, go non-strict; the reply is still parsed strictly.
    if (options.responseFormat?.type === 'json' && options.responseFormat.schema) {
      options.providerOptions = { openai: { strictJsonSchema: strictCompatible(options.responseFormat.schema) } };
    }
    if (sendTools) {
      options.tools = request.tools.map((t) => ({
        type: 'function' as const,
        name: t.name,
        description: t.description,
        inputSchema: t.parameters as JSONSchema7,
      }));
      options.toolChoice = { type: 'auto' };
    }
    return options;
  }

  #prompt(request: ModelRequest, system: string): Prompt {
    const turns: Array<{ role: 'user' | 'assistant'; text: string }> = [];
    for (const m of request.messages) {
      const role = m.role === 'assistant' ? 'assistant' : 'user';
      const text = m.role === 'assistant' ? m.content : labelMessage(m);
      const prev = turns.at(-1);
      if (this.#p.alternateRoles && prev && prev.role === role) prev.text = `${prev.text}\n${text}`;
      else turns.push({ role, text });
    }
    if (this.#p.alternateRoles && turns[0]?.role !== 'user') turns.unshift({ role: 'user', text: 'Begin.' });
    const prompt: Prompt = [];
    if (system) prompt.push({ role: 'system', content: system });
    for (const t of turns) prompt.push({ role: t.role, content: [{ type: 'text', text: t.text }] });
    return prompt;
  }

  #signal(outer?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean } {
    const timeout = AbortSignal.timeout(this.#p.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    return { signal, timedOut: () => timeout.aborted && !outer?.aborted };
  }

  #wrap(error: unknown, outer: AbortSignal | undefined, timedOut: boolean): unknown {
    if (error instanceof ProviderError) return error;
    if (outer?.aborted) return outer.reason ?? error;
    const id = this.providerId;
    const secrets = this.#p.secrets;
    if (timedOut || (isAbort(error) && !outer?.aborted)) {
      return new ProviderError(`${id} request timed out after ${this.#p.timeoutMs} ms`, {
        code: 'timeout',
        cause: error,
      });
    }
    if (APICallError.isInstance(error)) {
      const status = error.statusCode;
      const cause = error.cause;
      const badBody = TypeValidationError.isInstance(cause) || JSONParseError.isInstance(cause);
      if (badBody || (status !== undefined && status >= 200 && status < 300)) {
        return new MalformedResponseError(
          `${id} returned a response that does not match its API: ${scrub(error.message, secrets)}`,
          { status, cause: error },
        );
      }
      return new ProviderError(`${id} request failed: APICallError: ${scrub(error.message, secrets)}`, {
        status,
        retryable: status === undefined ? true : retryableStatus(status),
        code: status === undefined ? 'connection_failed' : codeForStatus(status),
        retryAfterSeconds: retryAfterSeconds(error.responseHeaders),
        cause: error,
      });
    }
    if (
      TypeValidationError.isInstance(error) ||
      JSONParseError.isInstance(error) ||
      InvalidResponseDataError.isInstance(error) ||
      EmptyResponseBodyError.isInstance(error) ||
      NoContentGeneratedError.isInstance(error)
    ) {
      return new MalformedResponseError(
        `${id} returned a response that does not match its API: ${error.name}: ${scrub(error.message, secrets)}`,
        { cause: error },
      );
    }
    if (error instanceof TypeError && /fetch failed|network|socket|ECONNRE/i.test(error.message)) {
      return new ProviderError(`${id} request failed: ${error.name}: ${scrub(error.message, secrets)}`, {
        code: 'connection_failed',
        retryable: true,
        cause: error,
      });
    }
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(`${id} request failed: ${name}: ${scrub(message, secrets)}`, { cause: error });
  }

  #loaded?: Promise<LanguageModelV3>;

  /** The language model, loading the vendor SDK once on first use. */
  #model(): Promise<LanguageModelV3> {
    const source = this.#p.languageModel;
    this.#loaded ??= typeof source === 'function' ? source() : Promise.resolve(source);
    return this.#loaded;
  }

  async #call(request: ModelRequest, mode: Mode, outer?: AbortSignal): Promise<ModelResponse> {
    const timer = new Timer();
    const { signal, timedOut } = this.#signal(outer);
    let result: GenerateResult;
    try {
      result = await (await this.#model()).doGenerate(this.#options(request, mode, signal));
    } catch (error) {
      throw this.#wrap(error, outer, timedOut());
    }
    const latency = timer.stop();
    return this.#normalize(request, mode, result, latency);
  }

  #normalize(request: ModelRequest, mode: Mode, result: GenerateResult, latencyMs: number): ModelResponse {
    const p = this.#p;
    const unsupported = result.warnings.find(
      (w) => w.type === 'unsupported' && /tool|responseFormat|response format/i.test(w.feature),
    );
    if (unsupported && unsupported.type === 'unsupported') {
      throw new CapabilityUnsupportedError(
        `${p.providerId} (${p.model}) does not support ${unsupported.feature}${unsupported.details ? `: ${unsupported.details}` : ''}`,
      );
    }
    let text = '';
    let toolCall: ToolCall | null = null;
    for (const part of result.content) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool-call' && !part.providerExecuted && !toolCall) {
        if (!request.tools.some((t) => t.name === part.toolName)) {
          throw new MalformedResponseError(
            `${p.providerId} proposed tool ${JSON.stringify(part.toolName)}, which was not offered`,
          );
        }
        toolCall = { name: part.toolName, arguments: parseToolArguments(part.input) };
      }
    }
    const finish = toolCall ? 'tool_proposal' : mapFinish(result.finishReason.unified);
    if (!toolCall && text.trim() === '' && finish === 'stop') {
      throw new MalformedResponseError(`${p.providerId} returned no content`);
    }
    const input = result.usage.inputTokens.total;
    const output = result.usage.outputTokens.total;
    const usage: ModelUsage =
      typeof input === 'number' && typeof output === 'number'
        ? { input_tokens: input, output_tokens: output, estimated: false }
        : estimateCallUsage(request, text);
    const model = (p.modelFromResponse ? result.response?.modelId : undefined) || p.model;
    const response = buildResponse({
      provider: p.providerId,
      model,
      finish,
      text,
      toolCall,
      usage,
      latencyMs,
      wantStructured: mode.structured,
    });
    if (p.fixedCostUsd !== undefined) {
      return { ...response, estimated_cost_usd: p.fixedCostUsd, cost_is_estimated: true };
    }
    return response;
  }
}

export { envValue, requireEnv } from '../shared/env.js';
