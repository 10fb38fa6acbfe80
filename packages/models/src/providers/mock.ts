import { z } from 'zod';
import {
  CapabilityUnsupportedError,
  FinishReason,
  MalformedResponseError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  ProviderCapabilities,
  ProviderError,
  type ToolCall,
} from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { withToolResult } from '../shared/messages.js';
import type { ModelPrice } from '../shared/pricing.js';
import { buildResponse } from '../shared/response.js';
import { Timer } from '../shared/timer.js';
import { estimateCallUsage, estimateRequestUsage } from '../shared/tokens.js';

/** The provider operation a scripted reply answers. */
export type MockMethod = 'generate' | 'generateStructured' | 'requestTool' | 'continueAfterTool' | 'stream';

/** One scripted reply. Every field is optional; an empty reply is an empty text answer. */
export const MockReply = z.strictObject({
  /** Raw text of the answer. For structured calls without `structured`, this text is parsed (and may be malformed). */
  text: z.string().optional(),
  /** Structured answer; `text` defaults to its JSON. */
  structured: z.record(z.string(), z.unknown()).optional(),
  /** A proposed tool call; finish becomes `tool_proposal`. */
  tool_call: z.strictObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) }).optional(),
  finish_reason: FinishReason.optional(),
  /** Vendor-reported usage; absent usage is estimated and marked so. */
  usage: z.strictObject({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) }).optional(),
  /** Vendor-reported cost in USD; absent cost is estimated from the price table (null for unknown models). */
  cost_usd: z.number().min(0).optional(),
  /** Model name reported in the response (defaults to the provider's model). */
  model: z.string().min(1).optional(),
  /** Latency to report instead of the measured one (deterministic reports). */
  latency_ms: z.number().min(0).optional(),
  /** Real wait before answering, in ms (honours the abort signal). */
  delay_ms: z.number().min(0).optional(),
  /** Chunks for `stream`; defaults to the text in one chunk. */
  chunks: z.array(z.string()).optional(),
  /** Fail instead of answering. */
  error: z
    .strictObject({
      type: z.enum(['provider', 'malformed', 'capability']).default('provider'),
      message: z.string().min(1),
      status: z.number().int().optional(),
      retryable: z.boolean().optional(),
      code: z.string().optional(),
    })
    .optional(),
});
export type MockReply = z.input<typeof MockReply>;

/** What a scripted rule matches. All given conditions must hold. Strings match as substrings, except `stage` (exact). */
export interface MockMatcher {
  stage?: string | RegExp;
  /** Content of the last message (after continueAfterTool: the tool result). */
  lastMessage?: string | RegExp;
  /** Content of any message. */
  anyMessage?: string | RegExp;
  systemPrompt?: string | RegExp;
  method?: MockMethod | readonly MockMethod[];
  /** Name of the tool whose result is being continued (continueAfterTool only). */
  toolName?: string;
  when?: (request: ModelRequest, call: MockCallInfo) => boolean;
}

export interface MockCallInfo {
  method: MockMethod;
  /** 0-based index of this call on the provider. */
  index: number;
  toolName: string | null;
}

export type MockReplySource =
  | MockReply
  | readonly MockReply[]
  | ((request: ModelRequest, call: MockCallInfo) => MockReply);

export interface MockRule {
  match?: MockMatcher;
  /** A reply, a sequence (consumed in order; the last one repeats) or a function of the request. */
  reply: MockReplySource;
  /** How many times the rule may answer (default unlimited). */
  times?: number;
}

/** A request the mock received, kept for assertions. */
export interface MockCall {
  method: MockMethod;
  request: ModelRequest;
  toolName: string | null;
  toolResult: unknown;
  /** The reply used, or null when no script matched. */
  reply: MockReply | null;
}

export interface MockProviderOptions {
  providerId?: string;
  model?: string;
  capabilities?: Partial<ProviderCapabilities>;
  /** Tried in order; the first matching rule with uses left answers. */
  rules?: readonly MockRule[];
  /** Replies used in order when no rule matches. */
  queue?: readonly MockReply[];
  /**
   * When neither a rule nor the queue answers: a fixed reply, `'echo'` (text `echo: <last message>`, structured
   * `{"echo": <last message>}`), or `'error'` (ProviderError naming the stage and last message; the default).
   */
  fallback?: MockReply | 'echo' | 'error';
  priceTable?: Readonly<Record<string, ModelPrice>>;
}

const DEFAULT_CAPABILITIES: ProviderCapabilities = {
  tool_calling: true,
  structured_output: true,
  streaming: true,
  usage_reporting: true,
  multimodal_input: false,
};

function matches(pattern: string | RegExp, text: string, exact = false): boolean {
  if (typeof pattern === 'string') return exact ? text === pattern : text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A deterministic scripted ModelProvider for tests, judges and demos. Replies are chosen by rules matching the
 * request (stage, message text, method), then from a queue, then from the fallback. Every call is recorded.
 *
 * @example
 * const mock = new MockProvider({
 *   rules: [{ match: { stage: 'classify' }, reply: { structured: { label: 'phishing' } } }],
 *   queue: [{ text: 'hello' }],
 * });
 * await mock.generateStructured(ModelRequest.parse({ stage: 'classify' })); // structured {label: 'phishing'}
 */
export class MockProvider implements ModelProvider {
  readonly providerId: string;
  readonly model: string;
  readonly calls: MockCall[] = [];
  readonly #capabilities: ProviderCapabilities;
  readonly #rules: Array<{ rule: MockRule; used: number }>;
  readonly #queue: MockReply[];
  readonly #fallback: MockReply | 'echo' | 'error';
  readonly #priceTable: Readonly<Record<string, ModelPrice>> | undefined;

  constructor(options: MockProviderOptions = {}) {
    this.providerId = options.providerId ?? 'mock';
    this.model = options.model ?? 'mock-model';
    this.#capabilities = ProviderCapabilities.parse({ ...DEFAULT_CAPABILITIES, ...options.capabilities });
    this.#rules = (options.rules ?? []).map((rule) => ({ rule, used: 0 }));
    this.#queue = [...(options.queue ?? [])];
    this.#fallback = options.fallback ?? 'error';
    this.#priceTable = options.priceTable;
  }

  /** Adds a rule after the existing ones. */
  addRule(rule: MockRule): this {
    this.#rules.push({ rule, used: 0 });
    return this;
  }

  /** Appends replies to the queue. */
  enqueue(...replies: MockReply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Replies still waiting in the queue. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Requests received by one method (all methods when omitted). */
  requests(method?: MockMethod): ModelRequest[] {
    return this.calls.filter((c) => !method || c.method === method).map((c) => c.request);
  }

  describeCapabilities(): ProviderCapabilities {
    return { ...this.#capabilities };
  }

  countUsage(request: ModelRequest): ModelUsage {
    return estimateRequestUsage(request);
  }

  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#answer('generate', request, false, null, undefined, signal);
  }

  generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    if (!this.#capabilities.structured_output) {
      return Promise.reject(new CapabilityUnsupportedError(`${this.providerId} does not support structured output`));
    }
    return this.#answer('generateStructured', request, true, null, undefined, signal);
  }

  requestTool(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    if (!this.#capabilities.tool_calling) {
      return Promise.reject(new CapabilityUnsupportedError(`${this.providerId} does not support tool calling`));
    }
    return this.#answer('requestTool', request, false, null, undefined, signal);
  }

  continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    const next = withToolResult(request, toolName, toolResult);
    return this.#answer('continueAfterTool', next, this.#capabilities.structured_output, toolName, toolResult, signal);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<string> {
    if (!this.#capabilities.streaming) {
      throw new CapabilityUnsupportedError(`${this.providerId} does not support streaming`);
    }
    const reply = this.#select('stream', request, null, undefined);
    if (reply.delay_ms) await sleep(reply.delay_ms, signal);
    this.#throwScriptedError(reply);
    const chunks = reply.chunks ?? [this.#textOf(reply)];
    for (const chunk of chunks) {
      if (signal?.aborted) throw abortError(signal);
      yield chunk;
    }
  }

  async #answer(
    method: MockMethod,
    request: ModelRequest,
    wantStructured: boolean,
    toolName: string | null,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    const timer = new Timer();
    const reply = this.#select(method, request, toolName, toolResult);
    if (reply.delay_ms) await sleep(reply.delay_ms, signal);
    else if (signal?.aborted) throw abortError(signal);
    this.#throwScriptedError(reply);
    const text = this.#textOf(reply);
    const toolCall: ToolCall | null = reply.tool_call
      ? { name: reply.tool_call.name, arguments: reply.tool_call.arguments ?? {} }
      : null;
    const usage: ModelUsage = reply.usage ? { ...reply.usage, estimated: false } : estimateCallUsage(request, text);
    const latency = timer.stop();
    return buildResponse({
      provider: this.providerId,
      model: reply.model ?? this.model,
      finish: reply.finish_reason ?? 'stop',
      text,
      toolCall,
      usage,
      latencyMs: reply.latency_ms ?? latency,
      wantStructured,
      structured: reply.structured ?? null,
      reportedCostUsd: reply.cost_usd ?? null,
      priceTable: this.#priceTable,
    });
  }

  #textOf(reply: MockReply): string {
    if (reply.text !== undefined) return reply.text;
    if (reply.structured !== undefined) return JSON.stringify(reply.structured);
    return '';
  }

  #throwScriptedError(reply: MockReply): void {
    if (!reply.error) return;
    const { type = 'provider', message, status, retryable, code } = reply.error;
    const opts = { status, retryable, code };
    if (type === 'malformed') throw new MalformedResponseError(message, opts);
    if (type === 'capability') throw new CapabilityUnsupportedError(message, opts);
    throw new ProviderError(message, opts);
  }

  #select(method: MockMethod, request: ModelRequest, toolName: string | null, toolResult: unknown): MockReply {
    const info: MockCallInfo = { method, index: this.calls.length, toolName };
    const call: MockCall = { method, request, toolName, toolResult, reply: null };
    this.calls.push(call);
    let reply: MockReply | undefined;
    for (const slot of this.#rules) {
      const { rule } = slot;
      if (rule.times !== undefined && slot.used >= rule.times) continue;
      if (!this.#matches(rule.match, request, info)) continue;
      reply = this.#pick(rule.reply, slot.used, request, info);
      slot.used += 1;
      break;
    }
    reply ??= this.#queue.shift();
    if (!reply) reply = this.#fallbackReply(request);
    const checked = MockReply.safeParse(reply);
    if (!checked.success) {
      throw new ProviderError(`${this.providerId}: invalid scripted reply: ${checked.error.issues[0]?.message ?? ''}`);
    }
    call.reply = reply;
    return reply;
  }

  #pick(source: MockReplySource, used: number, request: ModelRequest, info: MockCallInfo): MockReply {
    if (typeof source === 'function') return source(request, info);
    if (Array.isArray(source)) {
      const list = source as readonly MockReply[];
      // Past the end of the script, the last reply repeats; an empty script replies with nothing.
      return list[Math.min(used, list.length - 1)] ?? {};
    }
    return source as MockReply;
  }

  #matches(match: MockMatcher | undefined, request: ModelRequest, info: MockCallInfo): boolean {
    if (!match) return true;
    const last = request.messages.at(-1)?.content ?? '';
    if (match.stage !== undefined && !matches(match.stage, request.stage, true)) return false;
    if (match.lastMessage !== undefined && !matches(match.lastMessage, last)) return false;
    if (match.anyMessage !== undefined) {
      const pattern = match.anyMessage;
      if (!request.messages.some((m) => matches(pattern, m.content))) return false;
    }
    if (match.systemPrompt !== undefined && !matches(match.systemPrompt, request.system_prompt)) return false;
    if (match.method !== undefined) {
      const methods: readonly MockMethod[] = typeof match.method === 'string' ? [match.method] : match.method;
      if (!methods.includes(info.method)) return false;
    }
    if (match.toolName !== undefined && info.toolName !== match.toolName) return false;
    if (match.when && !match.when(request, info)) return false;
    return true;
  }

  #fallbackReply(request: ModelRequest): MockReply {
    const last = request.messages.at(-1)?.content ?? '';
    if (this.#fallback === 'echo') return { text: `echo: ${last}`, structured: { echo: last } };
    if (this.#fallback === 'error') {
      const shown = last.length > 80 ? `${last.slice(0, 80)}…` : last;
      throw new ProviderError(
        `${this.providerId}: no scripted reply for stage '${request.stage}' (last message: ${JSON.stringify(shown)})`,
        { code: 'no_scripted_reply' },
      );
    }
    return this.#fallback;
  }
}

/** Data-only mock script (for suite files): rules use `stage`, `last_message_contains`, `last_message_regex`. */
export const MockScript = z.strictObject({
  model: z.string().min(1).optional(),
  rules: z
    .array(
      z.strictObject({
        stage: z.string().optional(),
        last_message_contains: z.string().optional(),
        last_message_regex: z.string().optional(),
        any_message_contains: z.string().optional(),
        method: z.enum(['generate', 'generateStructured', 'requestTool', 'continueAfterTool', 'stream']).optional(),
        times: z.number().int().min(1).optional(),
        reply: z.union([MockReply, z.array(MockReply).min(1)]),
      }),
    )
    .default([]),
  queue: z.array(MockReply).default([]),
  fallback: z.union([z.enum(['echo', 'error']), MockReply]).default('error'),
});
export type MockScript = z.input<typeof MockScript>;

/** Builds a MockProvider from a data-only script (validated; bad regexes and fields are reported by path). */
export function createMockProvider(
  script: MockScript,
  options: Omit<MockProviderOptions, 'rules' | 'queue'> = {},
): MockProvider {
  const parsed = MockScript.parse(script);
  const rules: MockRule[] = parsed.rules.map((r, i) => {
    let regex: RegExp | undefined;
    if (r.last_message_regex !== undefined) {
      try {
        regex = new RegExp(r.last_message_regex);
      } catch (error) {
        throw new ProviderError(
          `rules[${i}].last_message_regex: invalid regular expression: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const match: MockMatcher = {
      stage: r.stage,
      anyMessage: r.any_message_contains,
      method: r.method,
    };
    const when =
      r.last_message_contains !== undefined || regex
        ? (request: ModelRequest) => {
            const last = request.messages.at(-1)?.content ?? '';
            if (r.last_message_contains !== undefined && !last.includes(r.last_message_contains)) return false;
            return !regex || matches(regex, last);
          }
        : undefined;
    return { match: { ...match, when }, reply: r.reply, times: r.times };
  });
  return new MockProvider({
    ...options,
    model: options.model ?? parsed.model,
    rules,
    queue: parsed.queue,
    fallback: options.fallback ?? parsed.fallback,
  });
}

/** Registry entry for the generic scripted mock (no credentials; answers by echoing unless scripted). */
export const mockEntry: ProviderEntry = {
  id: 'mock',
  adapter: 'MockProvider (scripted, deterministic)',
  adapterVersion: '1.0.0',
  envVars: [],
  capabilities: { ...DEFAULT_CAPABILITIES },
  defaultModel: 'mock-model',
  validationLevel: 'deterministic',
  validation: 'deterministic, runs in CI',
  description: 'Deterministic scripted provider for tests and demos (echo fallback)',
  create(_env, model) {
    return new MockProvider({ model, fallback: 'echo' });
  },
};
