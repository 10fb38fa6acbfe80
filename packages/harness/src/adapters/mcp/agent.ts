import { isAbsolute, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type AgentOutput, type AgentOutputInput, agentOutput, type ToolCallRecordInput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redactor.js';
import { closest, type PluginContext } from '../../plugins/registry.js';
import { looksSecret, REDACTED, registerCredentialPositions, SecretScrubber } from '../../secrets/scrubber.js';
import type { Agent, RunContext } from '../base.js';
import { type Authenticator, createAuthenticator } from '../http/auth.js';
import { type CompiledMapping, compileMapping } from '../http/mapping.js';
import { type CompiledTemplate, compileTemplate, type TemplateScope } from '../http/template.js';
import { errorOutput, excerpt, replyToOutput } from '../normalize.js';
import { childEnv, DEFAULT_ENV_ALLOW, programOf, splitCommand, Tail } from '../subprocess/process.js';
import type { McpOptions } from './options.js';

type Input = string | Record<string, unknown>;
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The text blocks of a tool result, joined. */
function resultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter(
      (c): c is { type: 'text'; text: string } =>
        c.type === 'text' && typeof (c as { text?: unknown }).text === 'string',
    )
    .map((c) => c.text)
    .join('\n');
}

/** What a call "returned": structured content when there is some, else the text (parsed when it is JSON). */
function resultValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = resultText(result);
  const others = (result.content ?? []).filter((c) => c.type !== 'text');
  if (others.length > 0) return { text, content: result.content };
  return text;
}

function parseMaybeJson(text: string): unknown {
  const t = text.trim();
  if (!/^[[{]/.test(t)) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

interface CallOutcome {
  record: ToolCallRecordInput;
  result: CallToolResult | null;
  /** Transport or protocol failure (unknown tool, timeout, closed connection); not a tool-level isError. */
  failure: string | null;
  transient: boolean;
}

interface PlannedCall {
  tool: string;
  arguments: Json;
}

const CONNECTION_CODES = /ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|fetch failed|other side closed/i;

/** Drives an MCP server; see ../mcp.ts. One connection per agent, opened on first use and reopened if it drops. */
export class McpAgent implements Agent {
  readonly #options: McpOptions;
  readonly #ctx: PluginContext;
  readonly #scrubber: Redactor;
  readonly #transport: 'stdio' | 'http';
  readonly #mode: 'agent' | 'tools';
  readonly #arguments: CompiledTemplate<Json> | null;
  readonly #mapping: CompiledMapping;
  readonly #auth: Authenticator | null;
  #client: Client | null = null;
  /** The tool names each connection's server offers (tools/list), fetched once per connection. */
  #offered = new WeakMap<Client, Promise<Set<string>>>();
  #connecting: Promise<Client> | null = null;
  #stderr = new Tail(8192);
  #closed = false;

  constructor(options: McpOptions, ctx: PluginContext) {
    this.#options = options;
    this.#ctx = ctx;
    this.#scrubber = ctx.secrets ?? new SecretScrubber();
    this.#transport = options.transport ?? (options.url ? 'http' : 'stdio');
    this.#mode = options.mode ?? (options.tool ? 'agent' : 'tools');
    this.#arguments = options.arguments ? compileTemplate(options.arguments, 'arguments') : null;
    this.#mapping = compileMapping(options.response);
    // Credential headers, `auth`, secret-looking `env` entries and URL userinfo, whatever their source.
    registerCredentialPositions(options, ctx.env, this.#scrubber);
    this.#auth = options.auth
      ? createAuthenticator(options.auth, ctx.env, this.#scrubber, async (url, init) => {
          const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, signal: init.signal });
          return { status: res.status, text: await res.text() };
        })
      : null;
  }

  describe() {
    const options: Json = { ...this.#options };
    if (this.#options.auth) {
      const auth: Json = { ...this.#options.auth };
      for (const k of ['token', 'password', 'value', 'client_secret']) if (k in auth) auth[k] = REDACTED;
      options.auth = auth;
    }
    options.env = Object.fromEntries(
      Object.entries(this.#options.env).map(([k, v]) => [k, looksSecret(k) ? REDACTED : v]),
    );
    return { adapter: 'mcp', options: this.#scrubber.deep(options) };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => null));
    this.#client = null;
    await client?.close().catch(() => {});
  }

  async run(input: Input, context: RunContext): Promise<AgentOutput> {
    const started = performance.now();
    const latency = () => (performance.now() - started) / 1000;
    try {
      const client = await this.#connected(context.signal);
      const out =
        this.#mode === 'agent'
          ? await this.#runAgent(client, input, context, latency)
          : await this.#runTools(client, input, context, latency);
      return this.#scrubber.output(out);
    } catch (err) {
      const cause = (err as { cause?: { message?: unknown; code?: unknown } })?.cause;
      let message = errorMessage(err);
      if (cause && typeof cause.message === 'string' && !message.includes(cause.message))
        message += ` (${cause.message})`;
      const transient = CONNECTION_CODES.test(message) || CONNECTION_CODES.test(String(cause?.code ?? ''));
      const stderr = this.#stderr.toString().trim();
      return this.#scrubber.output(
        errorOutput(
          `MCP ${this.#transport}: ${message}${stderr ? ` (server stderr: ${excerpt(stderr.slice(-1000), 300)})` : ''}`,
          {
            transient,
            latency: latency(),
          },
        ),
      );
    }
  }

  // ---- connection ---------------------------------------------------------------------------------------

  async #connected(signal: AbortSignal): Promise<Client> {
    if (this.#closed) throw new Error('adapter is closed');
    if (this.#client) return this.#client;
    if (!this.#connecting) {
      this.#connecting = this.#connect().finally(() => {
        this.#connecting = null;
      });
    }
    const pending = this.#connecting;
    return await new Promise<Client>((resolvePromise, reject) => {
      const onAbort = () => reject(new Error('aborted while connecting'));
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (c) => {
          signal.removeEventListener('abort', onAbort);
          resolvePromise(c);
        },
        (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  async #connect(): Promise<Client> {
    const client = new Client({ name: 'aeh-harness', version: '0.1.0' });
    const transport = this.#makeTransport();
    client.onclose = () => {
      if (this.#client === client) this.#client = null;
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(transport),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no MCP handshake within ${this.#options.connect_timeout} s (connect_timeout)`)),
            this.#options.connect_timeout * 1000,
          );
        }),
      ]);
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
    this.#client = client;
    return client;
  }

  #makeTransport(): Transport {
    if (this.#transport === 'stdio') {
      const o = this.#options;
      const words = Array.isArray(o.command) ? (o.command as string[]) : splitCommand(o.command as string);
      const cwd = o.cwd ? (isAbsolute(o.cwd) ? o.cwd : resolve(this.#ctx.baseDir, o.cwd)) : this.#ctx.baseDir;
      const env = childEnv(this.#ctx.env, o.env_allow ?? DEFAULT_ENV_ALLOW, o.env);
      const transport = new StdioClientTransport({
        command: programOf(words),
        args: words.slice(1),
        cwd,
        env,
        stderr: 'pipe',
      });
      this.#stderr = new Tail(8192);
      (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
      return transport;
    }
    const url = new URL(this.#options.url as string);
    const headers = { ...this.#options.headers };
    const auth = this.#auth;
    const fetchWithAuth = async (target: string | URL, init?: RequestInit): Promise<Response> => {
      const merged: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => {
        merged[k] = v;
      });
      Object.assign(merged, headers);
      const u = new URL(target);
      if (auth) await auth.apply(merged, u.searchParams, init?.signal ?? new AbortController().signal);
      const res = await fetch(u, { ...init, headers: merged });
      if (res.status === 401) auth?.rejected();
      return res;
    };
    return new StreamableHTTPClientTransport(url, { fetch: fetchWithAuth });
  }

  // ---- calls --------------------------------------------------------------------------------------------

  /** Every tool name the server lists (all pages); `fresh` re-lists, for servers whose tools change. */
  async #offeredTools(client: Client, signal: AbortSignal, fresh: boolean): Promise<Set<string>> {
    let pending = fresh ? undefined : this.#offered.get(client);
    if (!pending) {
      pending = (async () => {
        const names = new Set<string>();
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, {
            signal,
            timeout: this.#options.call_timeout * 1000,
          });
          for (const t of page.tools) names.add(t.name);
          cursor = page.nextCursor;
        } while (cursor);
        return names;
      })();
      pending.catch(() => this.#offered.delete(client));
      this.#offered.set(client, pending);
    }
    return await pending;
  }

  async #call(client: Client, tool: string, args: Json, signal: AbortSignal): Promise<CallOutcome> {
    const started = performance.now();
    const timeoutMs = this.#options.call_timeout * 1000;
    const duration = () => (performance.now() - started) / 1000;
    try {
      // Decided on the server's own tool list, not on its error text: some servers (server-everything) answer an
      // unknown tool with an ordinary isError result, which would be recorded as a tool error and let a case
      // without an expected value pass. A tool the server does not offer fails the case.
      let offered = await this.#offeredTools(client, signal, false);
      if (!offered.has(tool)) offered = await this.#offeredTools(client, signal, true);
      if (!offered.has(tool)) {
        const names = [...offered].sort();
        const message = `unknown tool: the server offers ${names.length > 0 ? names.map((n) => `'${n}'`).join(', ') : 'no tools'}${didYouMean(tool, names)}`;
        return {
          record: { tool_name: tool, args, duration: duration(), status: 'error', error: message },
          result: null,
          failure: `MCP call to '${tool}' failed: ${message}`,
          transient: false,
        };
      }
      const result = (await client.callTool(
        { name: tool, arguments: args },
        { signal, timeout: timeoutMs, maxTotalTimeout: timeoutMs },
      )) as CallToolResult;
      const isError = result.isError === true;
      return {
        record: {
          tool_name: tool,
          args,
          result: resultValue(result),
          duration: duration(),
          status: isError ? 'error' : 'success',
          error: isError ? resultText(result) || 'tool reported an error' : null,
        },
        result,
        failure: null,
        transient: false,
      };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      let message = errorMessage(err);
      let transient = false;
      if (signal.aborted) message = 'aborted (case timeout or cancellation)';
      else if (code === 'REQUEST_TIMEOUT' || /timed out/i.test(message)) {
        message = `no reply within ${this.#options.call_timeout} s (call_timeout)`;
      } else if (CONNECTION_CODES.test(message) || /closed/i.test(String(code ?? message))) {
        transient = true;
        const stderr = this.#stderr.toString().trim();
        if (stderr) message += ` (server stderr: ${excerpt(stderr.slice(-1000), 300)})`;
      }
      return {
        record: { tool_name: tool, args, duration: duration(), status: 'error', error: message },
        result: null,
        failure: `MCP call to '${tool}' failed: ${message}`,
        transient,
      };
    }
  }

  async #runAgent(client: Client, input: Input, context: RunContext, latency: () => number): Promise<AgentOutput> {
    const tool = this.#options.tool as string;
    let args: Json;
    if (this.#arguments) {
      const scope: TemplateScope = {
        input,
        vars: context.vars,
        test: { id: context.testCase.id, name: context.testCase.name, tags: context.testCase.tags },
        repeat: context.repeat,
        attempt: context.attempt,
      };
      args = this.#arguments.render(scope);
    } else args = typeof input === 'string' ? { input } : input;

    const call = await this.#call(client, tool, args, context.signal);
    if (call.failure || !call.result) {
      return agentOutput({
        output: '',
        error: call.failure ?? 'no result',
        transient: call.transient || undefined,
        latency: latency(),
        tool_calls: [call.record],
      });
    }
    const result = call.result;
    if (result.isError) {
      return agentOutput({
        output: '',
        error: `MCP tool '${tool}' returned an error: ${excerpt(resultText(result), 500) || '(no text)'}`,
        latency: latency(),
        tool_calls: [call.record],
      });
    }
    const structured = result.structuredContent ?? parseMaybeJson(resultText(result));
    let partial: AgentOutputInput;
    let reported = false;
    if (this.#mapping.configured) {
      if (structured === undefined) {
        return errorOutput(`MCP tool '${tool}' returned no structured content to apply the response mapping to`, {
          latency: latency(),
        });
      }
      partial = { ...this.#mapping.apply(structured) };
      reported = partial.tool_calls !== undefined;
      if (partial.output === undefined) partial.output = this.#mapping.hasOutput ? '' : resultText(result);
    } else if (isObject(structured) && 'output' in structured) {
      // The agent tool answered in the harness reply shape: {output, tool_calls?, usage?, ...}.
      partial = { ...replyToOutput(structured, null) };
      reported = 'tool_calls' in structured;
    } else {
      const text = resultText(result);
      partial = { output: text || (isObject(structured) ? structured : '') };
    }
    if (reported) {
      // The agent reported its own trajectory: that is what tool evaluators check. The MCP call that ran the
      // agent is kept as a client span and in metadata.
      const end = Date.now();
      const span = {
        span_id: `mcp-${tool}`,
        name: `mcp.call ${tool}`,
        kind: 'client',
        start_ms: end - (call.record.duration ?? 0) * 1000,
        end_ms: end,
        status: 'ok' as const,
        attributes: { 'mcp.tool': tool },
      };
      return agentOutput({
        ...partial,
        latency: latency(),
        trace: { ...(partial.trace ?? {}), spans: [...(partial.trace?.spans ?? []), span] },
        metadata: { ...(partial.metadata ?? {}), mcp_call: call.record },
      });
    }
    // No trajectory reported: the MCP call itself is the agent's only observable tool call.
    return agentOutput({ ...partial, latency: latency(), tool_calls: [call.record] });
  }

  #plan(input: Input): { list: true } | { list: false; calls: PlannedCall[] } {
    const fromObject = (o: Json): PlannedCall => {
      const tool = o.tool ?? o.name;
      if (typeof tool !== 'string' || !tool) throw new Error("tools mode: each call needs 'tool' (the tool name)");
      const args = o.arguments ?? o.args ?? {};
      if (!isObject(args)) throw new Error(`tools mode: arguments of '${tool}' must be an object`);
      return { tool, arguments: args };
    };
    if (typeof input === 'string') {
      const t = input.trim();
      if (t === 'list_tools' || t === 'tools/list') return { list: true };
      const parsed = parseMaybeJson(t);
      if (isObject(parsed)) return this.#plan(parsed);
      return { list: false, calls: [{ tool: t, arguments: {} }] };
    }
    if (input.list_tools === true) return { list: true };
    if (Array.isArray(input.calls)) {
      return { list: false, calls: input.calls.map((c) => (isObject(c) ? fromObject(c) : fromObject({}))) };
    }
    return { list: false, calls: [fromObject(input)] };
  }

  async #runTools(client: Client, input: Input, context: RunContext, latency: () => number): Promise<AgentOutput> {
    const plan = this.#plan(input);
    if (plan.list) {
      const { tools } = await client.listTools(undefined, {
        signal: context.signal,
        timeout: this.#options.call_timeout * 1000,
      });
      return agentOutput({
        output: {
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description ?? '',
            input_schema: t.inputSchema,
          })),
        },
        latency: latency(),
      });
    }
    const records: ToolCallRecordInput[] = [];
    const values: unknown[] = [];
    for (const planned of plan.calls) {
      const call = await this.#call(client, planned.tool, planned.arguments, context.signal);
      records.push(call.record);
      values.push(call.record.result);
      if (call.failure) {
        return agentOutput({
          output: '',
          error: call.failure,
          transient: call.transient || undefined,
          latency: latency(),
          tool_calls: records,
        });
      }
      if (call.result?.isError && this.#options.tool_errors === 'fail') {
        return agentOutput({
          output: '',
          error: `MCP tool '${planned.tool}' returned an error: ${excerpt(call.record.error ?? '', 500)}`,
          latency: latency(),
          tool_calls: records,
        });
      }
    }
    const single = values.length === 1 ? values[0] : { results: values };
    const output =
      typeof single === 'string' || isObject(single) ? (single as string | Json) : JSON.stringify(single ?? '');
    return agentOutput({ output, latency: latency(), tool_calls: records });
  }
}

function didYouMean(name: string, names: string[]): string {
  const near = closest(name, names);
  return near ? ` (did you mean '${near}'?)` : '';
}
