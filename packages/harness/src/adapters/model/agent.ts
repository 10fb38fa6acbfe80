import { performance } from 'node:perf_hooks';
import {
  defaultProviderRegistry,
  MockProvider,
  MockReply,
  type MockRule,
  type ModelProvider,
  ModelRequest,
  type ModelResponse,
} from '@aeh/models';
import { type AgentOutput, type AgentOutputInput, agentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redactor.js';
import { firstZodIssue } from '../../core/zod-issues.js';
import type { PluginContext } from '../../plugins/registry.js';
import { looksSecret, REDACTED, registerCredentialPositions, SecretScrubber } from '../../secrets/scrubber.js';
import type { Agent, RunContext } from '../base.js';
import { type CompiledTemplate, compileTemplate, type TemplateScope } from '../http/template.js';
import { errorOutput } from '../normalize.js';
import type { ModelOptions } from './options.js';

type Input = string | Record<string, unknown>;
type Mode = 'text' | 'structured' | 'tool';

/** Build the provider named in the options (scripted mock replies included) and wrap it as an agent. */
export async function createModelAgent(options: ModelOptions, ctx: PluginContext): Promise<Agent> {
  const env = { ...ctx.env, ...options.env };
  const registry = defaultProviderRegistry({ env });
  const scrubber = ctx.secrets ?? new SecretScrubber();
  registerCredentialPositions(options, ctx.env, scrubber);
  let provider: ModelProvider;
  if (options.script) {
    if (options.provider !== 'mock')
      throw new Error(`script: only the mock provider takes scripted replies (provider is '${options.provider}')`);
    const rules: MockRule[] = options.script.map((entry, i) => {
      const parsed = MockReply.safeParse(entry.reply);
      if (!parsed.success) {
        throw new Error(`script[${i}].reply.${firstZodIssue(parsed.error)}`);
      }
      return { reply: parsed.data, ...(entry.match !== undefined ? { match: { lastMessage: entry.match } } : {}) };
    });
    provider = new MockProvider({ model: options.model ?? 'mock-model', rules, fallback: 'echo' });
  } else {
    const entry = registry.entry(options.provider);
    for (const name of [...entry.envVars, ...(entry.optionalEnvVars ?? [])])
      if (looksSecret(name)) scrubber.add(env[name]);
    provider = registry.get(
      options.provider,
      options.model,
      options.timeout ? { timeoutMs: options.timeout * 1000 } : {},
    );
  }
  return new ModelAgent(options, provider, scrubber);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Drives one ModelProvider call per case. */
export class ModelAgent implements Agent {
  readonly #options: ModelOptions;
  readonly #provider: ModelProvider;
  readonly #scrubber: Redactor;
  readonly #system: CompiledTemplate<string> | null;
  readonly #messages: CompiledTemplate<{ role: 'system' | 'user' | 'assistant'; content: string }[]>;
  readonly #mode: Mode;

  constructor(options: ModelOptions, provider: ModelProvider, scrubber: Redactor) {
    this.#options = options;
    this.#provider = provider;
    this.#scrubber = scrubber;
    this.#system = options.system ? compileTemplate(options.system, 'system') : null;
    this.#messages = compileTemplate(
      options.messages ?? [{ role: 'user' as const, content: options.prompt }],
      options.messages ? 'messages' : 'prompt',
    );
    this.#mode = options.mode ?? (options.response_schema ? 'structured' : options.tools.length > 0 ? 'tool' : 'text');
    const caps = provider.describeCapabilities();
    if (this.#mode === 'structured' && !caps.structured_output) {
      throw new Error(`provider '${provider.providerId}' does not support structured output (response_schema)`);
    }
    if (this.#mode === 'tool' && !caps.tool_calling) {
      throw new Error(`provider '${provider.providerId}' does not support tool calling (tools)`);
    }
    if (options.stream && !caps.streaming)
      throw new Error(`provider '${provider.providerId}' does not support streaming`);
  }

  describe() {
    const env = Object.fromEntries(
      Object.entries(this.#options.env).map(([k, v]) => [k, looksSecret(k) ? REDACTED : v]),
    );
    return {
      adapter: 'model',
      options: this.#scrubber.deep({ ...this.#options, env, resolved_model: this.#provider.model }),
    };
  }

  async run(input: Input, context: RunContext): Promise<AgentOutput> {
    const started = performance.now();
    const latency = () => (performance.now() - started) / 1000;
    try {
      return this.#scrubber.output(await this.#run(input, context, started, latency));
    } catch (err) {
      return this.#scrubber.output(this.#failure(err, context, latency()));
    }
  }

  async #run(input: Input, context: RunContext, started: number, latency: () => number): Promise<AgentOutput> {
    const scope: TemplateScope = {
      input,
      vars: context.vars,
      test: { id: context.testCase.id, name: context.testCase.name, tags: context.testCase.tags },
      repeat: context.repeat,
      attempt: context.attempt,
    };
    const request = ModelRequest.parse({
      system_prompt: this.#system?.renderText(scope) ?? '',
      messages: this.#messages.renderText(scope),
      tools: this.#mode === 'tool' ? this.#options.tools : [],
      response_schema: this.#mode === 'structured' ? (this.#options.response_schema ?? null) : null,
      max_output_tokens: this.#options.max_output_tokens,
      temperature: this.#options.temperature,
      trace_id: context.testCase.id,
    });
    const transcript = [
      ...(request.system_prompt ? [{ role: 'system', content: request.system_prompt }] : []),
      ...request.messages.map((m) => ({ role: m.role, content: m.content })),
    ];

    if (this.#options.stream) {
      let text = '';
      let firstAt: number | null = null;
      for await (const chunk of this.#provider.stream(request, context.signal)) {
        if (chunk.length > 0 && firstAt === null) firstAt = performance.now();
        text += chunk;
      }
      const input_tokens = this.#provider.countUsage(request).input_tokens;
      return agentOutput({
        output: text,
        latency: latency(),
        time_to_first_token: firstAt === null ? null : (firstAt - started) / 1000,
        usage: { input_tokens, output_tokens: Math.ceil(text.length / 4), estimated: true },
        trace: { messages: [...transcript, { role: 'assistant', content: text }] },
        metadata: { provider: this.#provider.providerId, model: this.#provider.model, streamed: true },
      });
    }

    let response: ModelResponse;
    if (this.#mode === 'structured') response = await this.#provider.generateStructured(request, context.signal);
    else if (this.#mode === 'tool') response = await this.#provider.requestTool(request, context.signal);
    else response = await this.#provider.generate(request, context.signal);
    return this.#toOutput(response, transcript, latency());
  }

  #toOutput(response: ModelResponse, transcript: { role: string; content: string }[], measured: number): AgentOutput {
    const partial: AgentOutputInput = {
      output: this.#mode === 'structured' && isObject(response.structured) ? response.structured : response.output_text,
      latency: measured,
      usage: {
        input_tokens: response.usage.input_tokens,
        output_tokens: response.usage.output_tokens,
        estimated: response.usage.estimated,
      },
      cost: response.estimated_cost_usd,
      cost_is_estimated: response.cost_is_estimated,
      trace: {
        messages: [
          ...transcript,
          {
            role: 'assistant',
            content: response.tool_call ? JSON.stringify(response.tool_call) : response.output_text,
          },
        ],
      },
      metadata: {
        provider: response.provider,
        model: response.model,
        finish_reason: response.finish_reason,
        provider_latency_ms: response.latency_ms,
      },
    };
    if (response.tool_call) {
      // A bare model only proposes a call: recorded without a result.
      partial.tool_calls = [{ tool_name: response.tool_call.name, args: response.tool_call.arguments }];
    }
    if (response.finish_reason === 'error') partial.error = 'the model reported an error finish';
    return agentOutput(partial);
  }

  #failure(err: unknown, context: RunContext, latency: number): AgentOutput {
    const e = err as { name?: string; message?: string; status?: number; retryable?: boolean; code?: string };
    const message = errorMessage(err);
    if (context.signal.aborted) return errorOutput('aborted (case timeout or cancellation)', { latency });
    if (e.name === 'TemplateError') return errorOutput(`prompt template: ${message}`, { latency });
    const status = typeof e.status === 'number' ? e.status : undefined;
    const transient =
      e.retryable === true ||
      status === 429 ||
      status === 502 ||
      status === 503 ||
      status === 504 ||
      e.code === 'connection_failed';
    const metadata: Record<string, unknown> = {
      ...(status !== undefined ? { http_status: status } : {}),
      ...(e.code ? { provider_error: e.code } : {}),
    };
    if (status === 429) metadata.rate_limited = true;
    const kind = e.name && e.name !== 'Error' ? `${e.name}: ` : '';
    return errorOutput(`${this.#provider.providerId}/${this.#provider.model}: ${kind}${message}`, {
      transient,
      latency,
      metadata,
    });
  }
}
