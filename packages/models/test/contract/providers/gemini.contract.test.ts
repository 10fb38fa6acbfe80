import { describe, expect, it } from 'vitest';
import {
  createGeminiProvider,
  createVertexProvider,
  defaultProviderRegistry,
  MalformedResponseError,
  ProviderError,
} from '../../../src/index.js';
import { replay, socRequest } from './replay.js';

const KEY = 'AIza-test-contract-00000000';

function provider(...fixtures: string[]) {
  const r = replay(...fixtures);
  return { p: createGeminiProvider({ apiKey: KEY, fetch: r.fetch }), r };
}

describe('gemini adapter against recorded fixtures', () => {
  it('structured output without tools: JSON mode set, usage from usageMetadata, configured model name', async () => {
    const { p, r } = provider('gemini_structured');
    const res = await p.generateStructured(socRequest({ tools: [] }));
    expect(res.structured).toMatchObject({ tool: 'search_siem_events', arguments: { query: 'user:u-alex-rivera' } });
    expect(res.usage).toEqual({ input_tokens: 401, output_tokens: 22, estimated: false });
    expect(res.model).toBe('gemini-2.5-flash');
    const sent = r.last();
    expect(sent.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect((sent.body.generationConfig as Record<string, unknown>).responseMimeType).toBe('application/json');
    expect(JSON.stringify(sent.body.systemInstruction)).toContain('SOC investigator');
  });

  it('structured output with tools: no JSON mode (the API rejects it), a JSON instruction instead', async () => {
    const { p, r } = provider('gemini_structured');
    const res = await p.generateStructured(socRequest());
    expect(res.structured).not.toBeNull();
    const sent = r.last();
    expect((sent.body.generationConfig as Record<string, unknown>).responseMimeType).toBeUndefined();
    expect(JSON.stringify(sent.body.systemInstruction)).toMatch(/single JSON object/);
    expect(JSON.stringify(sent.body.tools)).toContain('lookup_indicator');
  });

  it('function call: lookup_indicator(198.51.100.77)', async () => {
    const { p } = provider('gemini_function_call');
    const res = await p.requestTool(socRequest());
    expect(res.tool_call).toEqual({ name: 'lookup_indicator', arguments: { indicator: '198.51.100.77' } });
    expect(res.finish_reason).toBe('tool_proposal');
  });

  it('safety block: malformed on the structured path, content_filter on plain generate', async () => {
    const { p } = provider('gemini_safety');
    await expect(p.generateStructured(socRequest({ tools: [] }))).rejects.toBeInstanceOf(MalformedResponseError);
    const plain = await p.generate(socRequest());
    expect(plain.finish_reason).toBe('content_filter');
    expect(plain.output_text).toBe('');
  });

  it('malformed output: prose is never read as JSON', async () => {
    const { p } = provider('gemini_malformed');
    await expect(p.generateStructured(socRequest({ tools: [] }))).rejects.toThrow(/non-JSON/);
  });

  it('provider error: 403 is a ProviderError with the status', async () => {
    const { p } = provider('gemini_error');
    const err = (await p.generate(socRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ status: 403, code: 'authentication_rejected' });
  });
});

describe('vertex adapter (Gemini wire format on the Vertex endpoint)', () => {
  it('posts to the regional endpoint with a bearer token and no API key header', async () => {
    const r = replay('gemini_structured');
    const p = createVertexProvider({
      project: 'soc-lab-test',
      location: 'europe-west4',
      accessToken: 'ya29.test-token',
      fetch: r.fetch,
    });
    const res = await p.generateStructured(socRequest({ tools: [] }));
    expect(res.provider).toBe('vertex');
    expect(res.structured).toMatchObject({ tool: 'search_siem_events' });
    const sent = r.last();
    expect(sent.url).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/soc-lab-test/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(sent.headers.authorization).toBe('Bearer ya29.test-token');
    expect(sent.headers['x-goog-api-key']).toBeUndefined();
  });

  it('needs project and location (and a token) before it can be built', () => {
    const registry = defaultProviderRegistry({ env: { GOOGLE_CLOUD_PROJECT: 'p' } });
    expect(() => registry.get('vertex')).toThrow(
      "provider 'vertex' is not configured; set GOOGLE_CLOUD_LOCATION, GOOGLE_VERTEX_ACCESS_TOKEN",
    );
  });
});
