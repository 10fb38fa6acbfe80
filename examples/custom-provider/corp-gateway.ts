/**
 * A provider adapter for a vendor the registry does not cover: a corporate LLM gateway that takes OpenAI-style
 * messages and returns `{ "output": "<text>" }`. This file is the example of docs/custom-provider.md (option 2);
 * its contract test is packages/models/test/contract/providers/example-adapter.contract.test.ts.
 */
import {
  buildResponse,
  CapabilityUnsupportedError,
  estimateTokens,
  MalformedResponseError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  openAIStyleMessages,
  type ProviderCapabilities,
  type ProviderEntry,
  ProviderError,
  requireEnv,
  Timer,
  withToolResult,
} from '@aeh/models';

export interface CorporateGatewayOptions {
  model: string;
  endpoint: string;
  token: string;
  /** Injected in tests to replay recorded replies. */
  fetch?: typeof globalThis.fetch;
}

export class CorporateGatewayProvider implements ModelProvider {
  readonly providerId = 'corp_gateway';
  readonly model: string;
  readonly #endpoint: string;
  readonly #token: string;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: CorporateGatewayOptions) {
    this.model = options.model;
    this.#endpoint = options.endpoint;
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  describeCapabilities(): ProviderCapabilities {
    return {
      tool_calling: false,
      structured_output: true,
      streaming: false,
      usage_reporting: false,
      multimodal_input: false,
    };
  }

  countUsage(request: ModelRequest): ModelUsage {
    const text = request.system_prompt + request.messages.map((m) => m.content).join('');
    return { input_tokens: estimateTokens(text), output_tokens: 0, estimated: true };
  }

  generateStructured(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#call(request, true, signal);
  }

  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    return this.#call(request, false, signal);
  }

  async requestTool(_request: ModelRequest): Promise<ModelResponse> {
    throw new CapabilityUnsupportedError('corp_gateway does not expose native tool calling');
  }

  continueAfterTool(
    request: ModelRequest,
    toolName: string,
    toolResult: unknown,
    signal?: AbortSignal,
  ): Promise<ModelResponse> {
    // The tool result goes back as an untrusted message, then the structured path runs again.
    return this.generateStructured(withToolResult(request, toolName, toolResult), signal);
  }

  // biome-ignore lint/correctness/useYield: refused before anything is produced.
  async *stream(_request: ModelRequest): AsyncIterable<string> {
    throw new CapabilityUnsupportedError('corp_gateway does not stream');
  }

  async #call(request: ModelRequest, wantStructured: boolean, signal?: AbortSignal): Promise<ModelResponse> {
    const timer = new Timer();
    const text = await this.#post(openAIStyleMessages(request), signal);
    const usage: ModelUsage = {
      input_tokens: this.countUsage(request).input_tokens,
      output_tokens: estimateTokens(text),
      estimated: true, // computed here, not reported by the gateway
    };
    // buildResponse parses the text as one JSON object when structured output is wanted, and throws
    // MalformedResponseError otherwise; cost comes from the price table and stays labelled estimated.
    return buildResponse({
      provider: this.providerId,
      model: this.model,
      finish: 'stop',
      text,
      toolCall: null,
      usage,
      latencyMs: timer.stop(),
      wantStructured,
    });
  }

  async #post(messages: ReturnType<typeof openAIStyleMessages>, signal?: AbortSignal): Promise<string> {
    let res: Response;
    try {
      res = await this.#fetch(this.#endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.#token}` },
        body: JSON.stringify({ model: this.model, messages }),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ProviderError(`corp_gateway request failed: ${(error as Error).name}`, {
        retryable: true,
        cause: error,
      });
    }
    if (!res.ok) {
      throw new ProviderError(`corp_gateway answered HTTP ${res.status}`, {
        status: res.status,
        retryable: res.status === 429 || res.status >= 500,
      });
    }
    const body = (await res.json().catch(() => null)) as { output?: unknown } | null;
    if (!body || typeof body.output !== 'string') {
      throw new MalformedResponseError('corp_gateway reply has no string "output" field');
    }
    return body.output;
  }
}

/** The registry entry: append it to SOCLAB_PROVIDER_ENTRIES in packages/soclab/src/providers/registry.ts. */
export const corpGatewayEntry: ProviderEntry = {
  id: 'corp_gateway',
  adapter: 'CorporateGatewayProvider',
  adapterVersion: '1.0.0',
  envVars: ['CORP_GATEWAY_URL', 'CORP_GATEWAY_TOKEN'],
  capabilities: {
    tool_calling: false,
    structured_output: true,
    streaming: false,
    usage_reporting: false,
    multimodal_input: false,
  },
  defaultModel: 'corp-default',
  validationLevel: 'contract-tested',
  validation: 'contract tests against recorded fixtures',
  description: 'Corporate LLM gateway',
  create(env, model, options) {
    const [endpoint, token] = requireEnv('corp_gateway', env, ['CORP_GATEWAY_URL', 'CORP_GATEWAY_TOKEN']);
    return new CorporateGatewayProvider({ model, endpoint, token, fetch: options?.fetch });
  },
};
