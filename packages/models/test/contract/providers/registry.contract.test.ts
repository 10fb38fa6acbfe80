import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PROVIDER_ENTRIES,
  defaultProviderRegistry,
  MockProvider,
  ModelRequest,
  ProviderError,
  ProviderRegistry,
} from '../../../src/index.js';
import { defined } from '../../helpers/defined.js';
import { replay } from './replay.js';

const FULL_ENV = {
  OPENAI_API_KEY: 'sk-x',
  AZURE_OPENAI_API_KEY: 'az-x',
  AZURE_OPENAI_ENDPOINT: 'https://x.openai.azure.com',
  ANTHROPIC_API_KEY: 'ant-x',
  GOOGLE_API_KEY: 'g-x',
  GOOGLE_CLOUD_PROJECT: 'proj',
  GOOGLE_CLOUD_LOCATION: 'us-central1',
  GOOGLE_VERTEX_ACCESS_TOKEN: 'ya29.x',
  XAI_API_KEY: 'xai-x',
  OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4000/v1',
};

describe('default provider registry', () => {
  it('lists the nine built-in providers, each with capabilities, adapter version and a validation note', () => {
    const registry = defaultProviderRegistry({ env: {} });
    // Listing order is the entries' order; the vendors below must stay, and a new provider file adds to them.
    expect(registry.ids()).toEqual(BUILTIN_PROVIDER_ENTRIES.map((e) => e.id));
    expect(registry.ids()).toEqual(
      expect.arrayContaining(['mock', 'openai', 'azure_openai', 'anthropic', 'gemini', 'vertex', 'xai', 'ollama']),
    );
    expect(registry.ids()[0]).toBe('mock');
    for (const row of registry.matrix()) {
      expect(row.adapter_version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(Object.keys(row.capabilities).sort()).toEqual(
        ['multimodal_input', 'streaming', 'structured_output', 'tool_calling', 'usage_reporting'].sort(),
      );
      expect(row.limitations.at(-1)).toMatch(/^validation: /);
    }
  });

  it('an unconfigured provider says which variables to set', () => {
    const registry = defaultProviderRegistry({ env: {} });
    const row = registry.compatibility('anthropic');
    expect(row.configured).toBe(false);
    expect(row.limitations[0]).toBe('credentials not configured: ANTHROPIC_API_KEY');
    expect(() => registry.get('anthropic')).toThrow("provider 'anthropic' is not configured; set ANTHROPIC_API_KEY");
    expect(registry.configured('ollama')).toBe(true);
    expect(registry.configured('mock')).toBe(true);
  });

  it('blank variables count as missing', () => {
    const registry = defaultProviderRegistry({ env: { OPENAI_API_KEY: '   ' } });
    expect(registry.configured('openai')).toBe(false);
  });

  it('unknown providers are rejected with the known list', () => {
    const registry = defaultProviderRegistry({ env: {} });
    expect(() => registry.get('openia')).toThrow(
      /^unknown provider 'openia' \(did you mean 'openai'\?\); known: mock, openai, azure_openai/,
    );
    expect(() => registry.get('zzzzzz')).toThrow(/^unknown provider 'zzzzzz'; known: mock, openai/);
    const err = (() => {
      try {
        registry.entry('nope');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'unknown_provider' });
  });

  it('a provider missing from the approved list is blocked even when configured', () => {
    const registry = defaultProviderRegistry({ env: FULL_ENV, approved: ['mock', 'ollama'] });
    expect(() => registry.get('openai')).toThrow("provider 'openai' is not on the approved list");
    expect(registry.compatibility('openai').limitations).toContain('not on the approved provider list');
    expect(registry.get('ollama').providerId).toBe('ollama');
  });

  it('every registered provider builds, satisfies the interface and reports its id and default model', () => {
    const registry = defaultProviderRegistry({ env: FULL_ENV });
    for (const id of registry.ids()) {
      const p = registry.get(id);
      expect(p.providerId).toBe(id);
      expect(p.model).toBe(registry.entry(id).defaultModel);
      for (const method of ['generate', 'generateStructured', 'requestTool', 'continueAfterTool', 'stream'] as const) {
        expect(typeof p[method]).toBe('function');
      }
      expect(p.describeCapabilities()).toEqual(registry.entry(id).capabilities);
      expect(p.countUsage(ModelRequest.parse({ system_prompt: 'abcdefgh' }))).toEqual({
        input_tokens: 2,
        output_tokens: 0,
        estimated: true,
      });
    }
  });

  it('passes a model and an injected fetch through get()', async () => {
    const registry = defaultProviderRegistry({ env: FULL_ENV });
    const r = replay('openai_structured');
    const p = registry.get('openai', 'gpt-4o', { fetch: r.fetch });
    expect(p.model).toBe('gpt-4o');
    await p.generateStructured(ModelRequest.parse({ messages: [{ role: 'user', content: 'go' }] }));
    expect(r.last().body.model).toBe('gpt-4o');
  });

  it('reports the region variable', () => {
    const registry = defaultProviderRegistry({ env: FULL_ENV });
    expect(registry.compatibility('vertex').region).toBe('us-central1');
    expect(registry.compatibility('openai').region).toBeNull();
  });

  it('extra entries are added, and an entry with a built-in id replaces it in place', () => {
    const adversary = {
      ...defined(BUILTIN_PROVIDER_ENTRIES[0], 'the first built-in provider entry'),
      description: 'scripted adversary',
      create: () => new MockProvider({ model: 'adversary' }),
    };
    const remote = { ...adversary, id: 'remote_agent', description: 'remote' };
    const registry = defaultProviderRegistry({ env: {} }, [adversary, remote]);
    expect(registry.ids()[0]).toBe('mock');
    expect(registry.ids().at(-1)).toBe('remote_agent');
    expect(registry.entry('mock').description).toBe('scripted adversary');
    expect(registry.get('mock').model).toBe('adversary');
  });

  it('rejects entries with invalid ids', () => {
    expect(
      () =>
        new ProviderRegistry([
          { ...defined(BUILTIN_PROVIDER_ENTRIES[0], 'the first built-in provider entry'), id: 'Bad-Id' },
        ]),
    ).toThrow(/invalid provider id/);
  });
});
