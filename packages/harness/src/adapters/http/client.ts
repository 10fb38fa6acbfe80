import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { Dispatcher, Agent as UndiciAgentClass } from 'undici';
import type { AgentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redactor.js';
import type { PluginContext } from '../../plugins/registry.js';
import {
  isCredentialHeader,
  looksSecret,
  REDACTED,
  registerCredentialPositions,
  SecretScrubber,
  urlCredentials,
} from '../../secrets/scrubber.js';
import type { Agent, RunContext } from '../base.js';
import { completeOutput, errorOutput, excerpt, replyToOutput } from '../normalize.js';
import { AuthError, type Authenticator, createAuthenticator } from './auth.js';
import { type CompiledJsonPath, compileJsonPath } from './json-path.js';
import { type CompiledMapping, compileMapping } from './mapping.js';
import type { HttpOptions } from './options.js';
import { NdjsonParser, SseParser, StreamAccumulator } from './stream.js';
import { type CompiledTemplate, compileTemplate, compileUrlTemplate, type TemplateScope } from './template.js';

type StreamKind = 'sse' | 'ndjson';
type RequestFn = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * undici's package entry loads every feature (fetch, mocks, caches, interceptors): ~0.3 s of start-up. The adapter
 * needs only the pooled Agent and the promise `request` API, so it loads those two modules (undici is pinned);
 * if that layout ever changes, it falls back to the package entry.
 */
function loadUndici(): { Agent: typeof UndiciAgentClass; request: RequestFn } {
  const require = createRequire(import.meta.url);
  try {
    const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgentClass;
    const request = require('undici/lib/api/api-request.js') as RequestFn;
    if (typeof Agent === 'function' && typeof request === 'function') return { Agent, request };
  } catch {
    // fall through
  }
  const full = require('undici') as typeof import('undici');
  return { Agent: full.Agent, request: full.Dispatcher.prototype.request as unknown as RequestFn };
}

const undici = loadUndici();

/** HTTP status classes accepted as a reply; everything else is an adapter error, never scored as output. */
function statusAccepter(accept: readonly (number | string)[]): (status: number) => boolean {
  const exact = new Set<number>();
  const classes = new Set<number>();
  for (const a of accept) {
    if (typeof a === 'number') exact.add(a);
    else classes.add(Number(a[0]));
  }
  return (status) => exact.has(status) || classes.has(Math.floor(status / 100));
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now) / 1000);
}

const TRANSIENT_CODES = new Map<string, string>([
  ['ECONNREFUSED', 'connection refused'],
  ['ECONNRESET', 'connection reset'],
  ['EPIPE', 'connection reset'],
  ['UND_ERR_SOCKET', 'connection closed by the server'],
  ['UND_ERR_CLOSED', 'connection closed'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect timeout'],
  ['UND_ERR_HEADERS_TIMEOUT', 'no response headers in time'],
  ['UND_ERR_BODY_TIMEOUT', 'response body stalled'],
  ['ETIMEDOUT', 'connection timed out'],
  ['EAI_AGAIN', 'DNS lookup failed temporarily'],
  ['ENETUNREACH', 'network unreachable'],
  ['EHOSTUNREACH', 'host unreachable'],
]);

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

class ResponseTooLarge extends Error {}

export class HttpAgent implements Agent {
  readonly #options: HttpOptions;
  readonly #scrubber: Redactor;
  readonly #dispatcher: UndiciAgentClass;
  readonly #url: CompiledTemplate<string>;
  readonly #headers: CompiledTemplate<Record<string, string>>;
  readonly #query: CompiledTemplate<Record<string, string>>;
  readonly #body: CompiledTemplate<unknown> | null;
  readonly #method: string;
  readonly #mapping: CompiledMapping;
  readonly #streamDelta: CompiledJsonPath | null;
  readonly #accept: (status: number) => boolean;
  readonly #auth: Authenticator | null;
  readonly #env: Record<string, string | undefined> = {};
  readonly #bodyFormat: 'json' | 'text' | 'form';
  #staticTarget: { origin: string; pathname: string; search: string } | null = null;

  constructor(options: HttpOptions, ctx: PluginContext) {
    this.#options = options;
    // The run's scrubber when there is one, so what this adapter learns is scrubbed from every file the run writes.
    this.#scrubber = ctx.secrets ?? new SecretScrubber();
    this.#url = compileUrlTemplate(options.url, 'url');
    this.#headers = compileTemplate(
      Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v])),
      'headers',
    );
    this.#query = compileTemplate(
      Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, String(v)])),
      'query',
    );
    const method = (options.method ?? 'POST').toUpperCase();
    this.#method = method;
    const bodyless = method === 'GET' || method === 'HEAD';
    const body = options.body !== undefined ? options.body : bodyless ? undefined : { input: '{{input}}' };
    this.#body = body === undefined ? null : compileTemplate(body, 'body');
    this.#bodyFormat = options.body_format ?? (typeof body === 'string' ? 'text' : 'json');
    this.#mapping = compileMapping(options.response);
    this.#streamDelta = options.stream_delta ? compileJsonPath(options.stream_delta) : null;
    this.#accept = statusAccepter(options.accept_status);

    // Only the environment variables the templates name are read; secret-looking ones are scrubbed from replies.
    for (const t of [this.#url, this.#headers, this.#query, this.#body]) {
      for (const name of t?.envNames ?? []) {
        this.#env[name] = ctx.env[name];
        if (looksSecret(name)) this.#scrubber.add(ctx.env[name]);
      }
    }
    // Values in credential positions are secrets whatever their source: literal, `${ENV}`, `{{env.X}}`.
    registerCredentialPositions(options, ctx.env, this.#scrubber);

    this.#dispatcher = new undici.Agent({
      connections: options.connections ?? null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connect: { timeout: options.connect_timeout * 1000 },
      headersTimeout: 0,
      bodyTimeout: 0,
    });

    this.#auth = options.auth
      ? createAuthenticator(options.auth, ctx.env, this.#scrubber, async (url, init) => {
          const res = await undici.request.call(this.#dispatcher, {
            origin: new URL(url).origin,
            path: new URL(url).pathname + new URL(url).search,
            method: 'POST',
            headers: init.headers,
            body: init.body,
            signal: init.signal,
          });
          return { status: res.statusCode, text: await res.body.text() };
        })
      : null;
  }

  describe() {
    const options: Record<string, unknown> = { ...this.#options };
    if (this.#options.auth) {
      const auth: Record<string, unknown> = { ...this.#options.auth };
      for (const k of ['token', 'password', 'value', 'client_secret']) if (k in auth) auth[k] = REDACTED;
      options.auth = auth;
    }
    return { adapter: 'http', options: this.#scrubber.deep(options) };
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  async run(input: string | Record<string, unknown>, context: RunContext): Promise<AgentOutput> {
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    try {
      return this.#scrubber.output(await this.#run(input, context, started, elapsed));
    } catch (err) {
      return this.#scrubber.output(this.#failure(err, context, elapsed()));
    }
  }

  async #run(
    input: string | Record<string, unknown>,
    context: RunContext,
    started: number,
    elapsed: () => number,
  ): Promise<AgentOutput> {
    const scope: TemplateScope = {
      input,
      vars: context.vars,
      env: this.#env,
      test: {
        id: context.testCase.id,
        name: context.testCase.name,
        tags: context.testCase.tags,
        metadata: context.testCase.metadata,
      },
      repeat: context.repeat,
      attempt: context.attempt,
    };
    const target = this.#target(scope);
    const headers: Record<string, string> = { ...this.#headers.renderText(scope) };
    // Templated from the case (`{{vars.token}}`): registered as rendered, before anything can echo it back.
    for (const [name, value] of Object.entries(headers))
      if (isCredentialHeader(name)) this.#scrubber.addCredential(value);
    let body: string | undefined;
    if (this.#body) {
      if (this.#bodyFormat === 'json') {
        body = JSON.stringify(this.#body.render(scope));
        headers['content-type'] ??= 'application/json';
      } else if (this.#bodyFormat === 'form') {
        const rendered = this.#body.renderText(scope);
        body = new URLSearchParams(rendered as Record<string, string>).toString();
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
      } else {
        const rendered = this.#body.renderText(scope);
        body = typeof rendered === 'string' ? rendered : JSON.stringify(rendered);
        headers['content-type'] ??= 'text/plain; charset=utf-8';
      }
    }
    headers.accept ??= 'application/json, text/event-stream, application/x-ndjson;q=0.9, */*;q=0.8';
    // An instrumented agent joins the run's trace (W3C Trace Context); set only when tracing is on.
    if (context.traceparent) headers.traceparent = context.traceparent;
    if (this.#auth) {
      const query = new URLSearchParams(target.search);
      await this.#auth.apply(headers, query, context.signal);
      const search = query.toString();
      target.search = search ? `?${search}` : '';
    }

    if (context.signal.aborted) return errorOutput('aborted before the request was sent', { latency: elapsed() });
    // With an adapter timeout, one controller carries both the run's cancellation and that timeout; without one,
    // the run's signal is used as is (no extra controller and listener per request).
    let signal = context.signal;
    let timedOut = false;
    let timer: NodeJS.Timeout | null = null;
    let onAbort: (() => void) | null = null;
    if (this.#options.timeout !== undefined) {
      const controller = new AbortController();
      onAbort = () => controller.abort(context.signal.reason);
      context.signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.#options.timeout * 1000);
      signal = controller.signal;
    }
    const where = `${this.#method} ${target.origin}${target.pathname}`;
    try {
      const res = await undici.request.call(this.#dispatcher, {
        origin: target.origin,
        path: target.pathname + target.search,
        method: this.#method as 'POST',
        headers,
        body,
        signal,
      });
      const status = res.statusCode;
      const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
      const metadata: Record<string, unknown> = { http_status: status };

      if (!this.#accept(status)) {
        const text = await this.#readLimited(res.body, Math.min(this.#options.max_response_bytes, 64 * 1024), true);
        if (status === 401) this.#auth?.rejected();
        const rateLimited = status === 429;
        const transient = rateLimited || status === 502 || status === 503 || status === 504 || status === 408;
        const retryAfter = parseRetryAfter(res.headers['retry-after']);
        if (rateLimited) metadata.rate_limited = true;
        const detail = excerpt(text, 300);
        return errorOutput(
          `HTTP ${status}${res.statusText ? ` ${res.statusText}` : ''} from ${where}${detail ? `: ${detail}` : ''}`,
          {
            transient,
            retry_after: transient ? retryAfter : undefined,
            latency: elapsed(),
            metadata,
          },
        );
      }

      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.#options.max_response_bytes) {
        res.body.destroy();
        return errorOutput(
          `response too large: ${where} announced ${declared} bytes, over max_response_bytes (${this.#options.max_response_bytes})`,
          { latency: elapsed(), metadata },
        );
      }

      const streamKind = this.#streamKind(contentType);
      if (streamKind) return await this.#readStream(res.body, streamKind, started, elapsed, metadata, where);

      const text = await this.#readLimited(res.body, this.#options.max_response_bytes, false);
      return this.#mapBody(text, contentType, elapsed(), metadata, where);
    } catch (err) {
      if (timedOut) {
        return errorOutput(`no complete response from ${where} within ${this.#options.timeout} s (timeout)`, {
          transient: true,
          latency: elapsed(),
        });
      }
      if (err instanceof ResponseTooLarge) {
        return errorOutput(
          `response too large: ${where} sent more than max_response_bytes (${this.#options.max_response_bytes} bytes)`,
          { latency: elapsed() },
        );
      }
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) context.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Origin, path and query of the request; parsed once when the URL and query have no templates. */
  #target(scope: TemplateScope): { origin: string; pathname: string; search: string } {
    if (this.#staticTarget) return { ...this.#staticTarget };
    const url = new URL(this.#url.renderText(scope));
    for (const [k, v] of Object.entries(this.#query.renderText(scope))) url.searchParams.append(k, v);
    for (const secret of urlCredentials(url.href)) this.#scrubber.add(secret);
    const target = { origin: url.origin, pathname: url.pathname, search: url.search };
    if (!this.#url.dynamic && !this.#query.dynamic) this.#staticTarget = target;
    return { ...target };
  }

  #streamKind(contentType: string): StreamKind | null {
    const mode = this.#options.stream;
    if (mode === false) return null;
    if (mode === 'sse' || mode === 'ndjson') return mode;
    if (contentType.includes('text/event-stream')) return 'sse';
    if (/application\/(x-)?(ndjson|jsonl|json-seq|jsonlines)/.test(contentType)) return 'ndjson';
    if (mode === true) return 'sse';
    return null;
  }

  /**
   * The body as text, at most `limit` bytes: past it the rest is cut off (`truncate`) or the read fails with
   * ResponseTooLarge. Read through 'data' events rather than an async iterator: that iterator's promise per chunk and
   * set-up cost more than the rest of reading a small reply.
   */
  #readLimited(body: Dispatcher.ResponseData['body'], limit: number, truncate: boolean): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const done = (error: unknown) => {
        if (settled) return;
        settled = true;
        body.off('data', onData);
        body.off('end', onEnd);
        body.off('close', onClose);
        // The error listener stays: destroying the body early makes undici emit an abort error after this.
        if (error) reject(error);
        else resolve(Buffer.concat(chunks).toString('utf8'));
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          if (truncate) chunks.push(chunk.subarray(0, chunk.length - (size - limit)));
          body.destroy();
          done(truncate ? null : new ResponseTooLarge());
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => done(null);
      const onError = (err: unknown) => done(err);
      // Closed before its end without an error: the reply is incomplete (what an async iterator reports too).
      const onClose = () => done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
      body.on('data', onData);
      body.on('end', onEnd);
      body.on('error', onError);
      body.on('close', onClose);
    });
  }

  #mapBody(
    text: string,
    contentType: string,
    latency: number,
    metadata: Record<string, unknown>,
    where: string,
  ): AgentOutput {
    const jsonish = /[/+]json\b/.test(contentType);
    let json: unknown;
    let parsed = false;
    const trimmed = text.trim();
    if (jsonish || (!contentType.startsWith('text/') && /^[[{"]/.test(trimmed))) {
      try {
        json = JSON.parse(trimmed);
        parsed = true;
      } catch {
        if (jsonish) {
          return errorOutput(`invalid JSON from ${where} (content-type ${contentType}): ${excerpt(text, 200)}`, {
            latency,
            metadata,
          });
        }
      }
    }
    if (!parsed) {
      if (this.#mapping.configured) {
        return errorOutput(
          `expected a JSON reply from ${where} to apply the response mapping, got ${contentType || 'no content-type'}: ${excerpt(text, 200)}`,
          { latency, metadata },
        );
      }
      return completeOutput({ output: text, latency, metadata });
    }
    return this.#fromJson(json, latency, metadata);
  }

  #fromJson(json: unknown, latency: number, metadata: Record<string, unknown>): AgentOutput {
    if (!this.#mapping.configured) {
      // Without a mapping, a reply in the harness protocol shape ({output, tool_calls, usage, ...}) is read as such.
      if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'output' in json) {
        const out = replyToOutput(json as Record<string, unknown>, latency);
        return { ...out, metadata: { ...out.metadata, ...metadata } };
      }
      const output =
        typeof json === 'string' || (json !== null && typeof json === 'object' && !Array.isArray(json))
          ? (json as string | Record<string, unknown>)
          : JSON.stringify(json);
      return completeOutput({ output, latency, metadata });
    }
    const mapped = this.#mapping.apply(json);
    if (this.#mapping.hasOutput && mapped.output === undefined && !mapped.error) {
      return errorOutput(
        `response mapping: output path '${this.#options.response?.output}' found nothing in the reply`,
        {
          latency,
          metadata: { ...metadata, response_excerpt: excerpt(JSON.stringify(json), 500) },
        },
      );
    }
    const partial: Partial<AgentOutput> = {
      ...mapped,
      output: mapped.output ?? (this.#mapping.hasOutput ? '' : (json as Record<string, unknown>)),
      latency,
      metadata: { ...(mapped.metadata ?? {}), ...metadata },
    };
    if (
      typeof partial.output !== 'string' &&
      (partial.output === null || typeof partial.output !== 'object' || Array.isArray(partial.output))
    ) {
      partial.output = JSON.stringify(partial.output);
    }
    return completeOutput(partial);
  }

  async #readStream(
    body: AsyncIterable<Buffer> & { destroy(): void },
    kind: StreamKind,
    started: number,
    elapsed: () => number,
    metadata: Record<string, unknown>,
    where: string,
  ): Promise<AgentOutput> {
    const acc = new StreamAccumulator(this.#streamDelta, this.#options.stream_done, () => performance.now());
    const decoder = new TextDecoder();
    const sse = kind === 'sse' ? new SseParser() : null;
    const nd = kind === 'ndjson' ? new NdjsonParser() : null;
    const feed = (text: string, last: boolean) => {
      if (sse) for (const e of last ? [...sse.push(text), ...sse.end()] : sse.push(text)) acc.add(e.data, e.event);
      if (nd) for (const line of last ? [...nd.push(text), ...nd.end()] : nd.push(text)) acc.add(line);
    };
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > this.#options.max_response_bytes) {
        body.destroy();
        throw new ResponseTooLarge();
      }
      feed(decoder.decode(chunk, { stream: true }), false);
      if (acc.done || acc.error) {
        body.destroy();
        break;
      }
    }
    feed(decoder.decode(), true);
    const latency = elapsed();
    const ttft = acc.firstTokenAt === null ? null : (acc.firstTokenAt - started) / 1000;
    metadata.stream = kind;
    metadata.stream_events = acc.events.length;
    if (acc.error) {
      return errorOutput(`stream from ${where} reported an error: ${excerpt(acc.error, 300)}`, { latency, metadata });
    }
    // Usage, tool calls, cost and metadata usually arrive in a final event: take the last value each path finds.
    const partial: Partial<AgentOutput> = { output: acc.text, latency, time_to_first_token: ttft, metadata };
    if (this.#mapping.configured) {
      const toolCalls: NonNullable<Partial<AgentOutput>['tool_calls']> = [];
      for (const event of acc.events) {
        const m = this.#mapping.apply(event);
        if (m.tool_calls) toolCalls.push(...m.tool_calls);
        if (m.usage) partial.usage = m.usage;
        if (m.cost !== undefined) partial.cost = m.cost;
        if (m.error) partial.error = m.error;
        if (m.output !== undefined) partial.output = m.output;
        if (m.metadata) partial.metadata = { ...partial.metadata, ...m.metadata };
      }
      partial.tool_calls = toolCalls;
    } else {
      const last = acc.events.at(-1);
      if (last && typeof last === 'object') {
        const usage = (last as Record<string, unknown>).usage;
        const out = usage ? replyToOutput({ output: '', usage }, null) : null;
        if (out?.usage) partial.usage = out.usage;
      }
    }
    return completeOutput(partial);
  }

  #failure(err: unknown, context: RunContext, latency: number): AgentOutput {
    if (err instanceof AuthError) return errorOutput(err.message, { transient: err.transient, latency });
    const message = errorMessage(err);
    if (err instanceof Error && err.name === 'TemplateError')
      return errorOutput(`request template: ${message}`, { latency });
    if (context.signal.aborted) return errorOutput('aborted (case timeout or cancellation)', { latency });
    const code = errorCode(err);
    if (code === 'UND_ERR_ABORTED' || (err instanceof Error && err.name === 'AbortError')) {
      return errorOutput('request aborted', { latency });
    }
    const known = code ? TRANSIENT_CODES.get(code) : undefined;
    if (known)
      return errorOutput(`${known} (${code}) calling ${this.#options.url}: ${message}`, { transient: true, latency });
    if (code === 'ENOTFOUND')
      return errorOutput(`host not found calling ${this.#options.url}: ${message}`, { latency });
    if (err instanceof TypeError && /Invalid URL/i.test(message)) {
      return errorOutput(`invalid URL after templating: ${message}`, { latency });
    }
    return errorOutput(`HTTP request failed${code ? ` (${code})` : ''}: ${message}`, { latency });
  }
}
