import { describe, expect, it } from 'vitest';
import {
  createAzureOpenAIProvider,
  createOllamaProvider,
  createOpenAICompatibleProvider,
  createXaiProvider,
  MalformedResponseError,
  ProviderError,
} from '../../../src/index.js';
import { replay, socRequest } from './replay.js';

describe('ollama adapter (OpenAI-compatible /v1) against recorded fixtures', () => {
  const build = (...f: string[]) => {
    const r = replay(...f);
    return { p: createOllamaProvider({ fetch: r.fetch }), r };
  };

  it('structured output: 350 input tokens reported, cost 0.0 labelled estimated', async () => {
    const { p, r } = build('ollama_structured');
    const res = await p.generateStructured(socRequest());
    expect(res.structured).toMatchObject({ tool: 'get_identity_profile' });
    expect(res.usage).toEqual({ input_tokens: 350, output_tokens: 28, estimated: false });
    expect(res.estimated_cost_usd).toBe(0);
    expect(res.cost_is_estimated).toBe(true);
    expect(r.last().url).toBe('http://localhost:11434/v1/chat/completions');
    expect(r.last().body.response_format).toEqual({ type: 'json_object' });
    expect(r.last().headers.authorization).toBeUndefined();
  });

  it('tool call: get_endpoint_status', async () => {
    const { p } = build('ollama_tool_call');
    const res = await p.requestTool(socRequest());
    expect(res.tool_call).toEqual({ name: 'get_endpoint_status', arguments: { device_id: 'dev-laptop-042' } });
  });

  it('malformed output throws on the structured path', async () => {
    const { p } = build('ollama_malformed');
    await expect(p.generateStructured(socRequest())).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('HTTP 503 is a ProviderError', async () => {
    const { p } = build('ollama_error');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).not.toBeInstanceOf(MalformedResponseError);
    expect(err).toMatchObject({ status: 503, code: 'provider_unavailable', retryable: true });
  });
});

describe('azure_openai adapter', () => {
  it('uses the deployment URL, api-version query and api-key header', async () => {
    const r = replay('openai_structured');
    const p = createAzureOpenAIProvider({
      apiKey: 'azure-test-key-0000',
      endpoint: 'https://soc-lab.openai.azure.com/',
      model: 'soc-gpt4o-mini',
      fetch: r.fetch,
    });
    const res = await p.generateStructured(socRequest());
    expect(res.provider).toBe('azure_openai');
    expect(res.usage.input_tokens).toBe(412);
    const sent = r.last();
    expect(sent.url).toBe(
      'https://soc-lab.openai.azure.com/openai/deployments/soc-gpt4o-mini/chat/completions?api-version=2024-10-21',
    );
    expect(sent.headers['api-key']).toBe('azure-test-key-0000');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('rejects an endpoint that is not a URL', () => {
    expect(() => createAzureOpenAIProvider({ apiKey: 'k', endpoint: 'soc-lab' })).toThrow(/AZURE_OPENAI_ENDPOINT/);
  });

  it('maps a 401 to a ProviderError', async () => {
    const r = replay('openai_error');
    const p = createAzureOpenAIProvider({ apiKey: 'k-0000', endpoint: 'https://x.openai.azure.com', fetch: r.fetch });
    await expect(p.generate(socRequest())).rejects.toMatchObject({ status: 401 });
  });
});

describe('xai adapter', () => {
  it('talks to api.x.ai with a bearer key and parses tool calls', async () => {
    const r = replay('openai_tool_call');
    const p = createXaiProvider({ apiKey: 'xai-test-0000', fetch: r.fetch });
    const res = await p.requestTool(socRequest());
    expect(res.provider).toBe('xai');
    expect(res.tool_call?.name).toBe('lookup_indicator');
    expect(r.last().url).toBe('https://api.x.ai/v1/chat/completions');
    expect(r.last().headers.authorization).toBe('Bearer xai-test-0000');
    expect(r.last().body.model).toBe('grok-4');
  });
});

describe('openai_compatible adapter', () => {
  it('estimates usage when the gateway does not forward it', async () => {
    const r = replay('openai_compatible_no_usage');
    const p = createOpenAICompatibleProvider({
      baseURL: 'http://127.0.0.1:4000/v1/',
      model: 'llama-70b',
      fetch: r.fetch,
    });
    const res = await p.generateStructured(socRequest());
    expect(res.structured).toMatchObject({ tool: 'get_identity_profile' });
    expect(res.usage.estimated).toBe(true);
    expect(res.usage.input_tokens).toBeGreaterThan(0);
    expect(res.estimated_cost_usd).toBeNull();
    expect(r.last().url).toBe('http://127.0.0.1:4000/v1/chat/completions');
  });

  it('refuses a tool the request did not offer instead of passing it on', async () => {
    const r = replay('openai_tool_call');
    const p = createOpenAICompatibleProvider({ baseURL: 'http://127.0.0.1:4000/v1', fetch: r.fetch });
    const onlyIdentity = socRequest();
    onlyIdentity.tools = onlyIdentity.tools.filter((t) => t.name === 'get_identity_profile');
    await expect(p.requestTool(onlyIdentity)).rejects.toThrow(
      /proposed tool "lookup_indicator", which was not offered/,
    );
  });
});
