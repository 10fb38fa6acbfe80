import { ModelRequest } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { DEFAULT_APPROVED_MODELS } from '../../../src/contracts/gateway.js';
import { HttpAgentProvider } from '../../../src/providers/http.js';
import { MockAdversaryProvider } from '../../../src/providers/mock.js';
import {
  approvedModelsFor,
  checkProviderSelection,
  isLiveProvider,
  ProviderSelectionError,
  providerValidationLabel,
  soclabProviderRegistry,
} from '../../../src/providers/registry.js';
import { PROVIDER_IDS } from '../../helpers/cli.js';

const TEN = [...PROVIDER_IDS];

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
  SOCLAB_HTTP_AGENT_URL: 'http://127.0.0.1:8765/v1/agent',
  SOCLAB_MCP_AGENT_COMMAND: 'node agent.mjs',
};

describe('soclab provider registry', () => {
  it('knows every provider, each with capabilities, an adapter version and a validation note', () => {
    const registry = soclabProviderRegistry({ env: {} });
    expect(registry.ids()).toEqual(TEN);
    for (const row of registry.matrix()) {
      expect(row.adapter_version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(typeof row.capabilities.tool_calling).toBe('boolean');
      expect(row.limitations.at(-1)).toMatch(/^validation: .+/);
    }
  });

  it('uses the scripted adversary as mock and the soclab.agent.v1 adapter as http', () => {
    const registry = soclabProviderRegistry({ env: FULL_ENV });
    expect(registry.get('mock')).toBeInstanceOf(MockAdversaryProvider);
    expect(registry.get('mock').model).toBe('mock-investigator-v1');
    const http = registry.get('http', 'my-agent');
    expect(http).toBeInstanceOf(HttpAgentProvider);
    expect(http.model).toBe('my-agent');
    expect(registry.compatibility('http')).toMatchObject({
      validation_level: 'end-to-end',
      capabilities: { tool_calling: true, structured_output: true, streaming: false, usage_reporting: false },
      env_vars: ['SOCLAB_HTTP_AGENT_URL'],
      optional_env_vars: ['SOCLAB_HTTP_AGENT_TOKEN', 'SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS'],
    });
  });

  it('every provider builds, satisfies the interface and reports its id', () => {
    const registry = soclabProviderRegistry({ env: FULL_ENV });
    for (const id of TEN) {
      const p = registry.get(id);
      expect(p.providerId).toBe(id);
      expect(p.describeCapabilities()).toEqual(registry.entry(id).capabilities);
      const usage = p.countUsage(ModelRequest.parse({ system_prompt: 'x'.repeat(40) }));
      expect(usage.input_tokens).toBeGreaterThan(0);
      // Only the scripted mock reports its own counts; every real adapter estimates locally.
      if (id !== 'mock') expect(usage.estimated).toBe(true);
    }
  });

  it('rejects unknown, unapproved and unconfigured providers before anything runs', () => {
    const registry = soclabProviderRegistry({ env: {}, approved: ['mock', 'http', 'anthropic'] });
    expect(() => checkProviderSelection(registry, 'gpt')).toThrow(/^unknown provider 'gpt'; known: mock, openai/);
    expect(() => checkProviderSelection(registry, 'openai')).toThrow("provider 'openai' is not on the approved list");
    expect(() => checkProviderSelection(registry, 'anthropic')).toThrow(
      "provider 'anthropic' is not configured; set ANTHROPIC_API_KEY",
    );
    expect(() => checkProviderSelection(registry, 'http')).toThrow(ProviderSelectionError);
    expect(checkProviderSelection(registry, 'mock')).toMatchObject({ model: 'mock-investigator-v1' });
  });

  it('a bad http timeout is reported when the provider is built', () => {
    const registry = soclabProviderRegistry({
      env: { SOCLAB_HTTP_AGENT_URL: 'http://127.0.0.1:1/v1/agent', SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS: 'abc' },
    });
    expect(() => registry.get('http')).toThrow("SOCLAB_HTTP_AGENT_TIMEOUT_SECONDS must be a number, got 'abc'");
  });

  it('marks mock as scripted and everything else as live', () => {
    expect(isLiveProvider('mock')).toBe(false);
    expect(TEN.filter(isLiveProvider)).toHaveLength(TEN.length - 1);
  });

  it('approves the chosen (provider, model) pair on top of the lab defaults', () => {
    expect(approvedModelsFor('http', 'agent')).toEqual([...DEFAULT_APPROVED_MODELS, ['http', 'agent']]);
    expect(approvedModelsFor('mock', 'mock-investigator-v1')).toEqual([...DEFAULT_APPROVED_MODELS]);
  });
});

describe('providerValidationLabel', () => {
  it('labels a provider by its validation level without repeating it', () => {
    expect(providerValidationLabel('mock')).toBe('deterministic, runs in CI');
    expect(providerValidationLabel('http')).toMatch(/^end-to-end: .*reference agent/);
    expect(providerValidationLabel('no_such_provider')).toBeNull();
  });
});
