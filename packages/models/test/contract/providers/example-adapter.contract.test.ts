import { describe, expect, it } from 'vitest';
import { CorporateGatewayProvider, corpGatewayEntry } from '../../../../../examples/custom-provider/corp-gateway.js';
import {
  CapabilityUnsupportedError,
  MalformedResponseError,
  ProviderError,
  ProviderRegistry,
} from '../../../src/index.js';
import { replay, socRequest } from './replay.js';

// The contract test of the custom-adapter example in docs/custom-provider.md: one recorded reply per case.
const build = (...fixtures: string[]) => {
  const r = replay(...fixtures);
  return {
    r,
    p: new CorporateGatewayProvider({
      model: 'corp-default',
      endpoint: 'https://gw.example/v1/chat',
      token: 't-0000',
      fetch: r.fetch,
    }),
  };
};

describe('example adapter (corp_gateway) against recorded fixtures', () => {
  it('structured output', async () => {
    const { p, r } = build('corp_gateway_structured');
    const res = await p.generateStructured(socRequest());
    expect(res.structured).toEqual({ tool: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } });
    expect(res.usage.estimated).toBe(true);
    expect(res.cost_is_estimated).toBe(true);
    const messages = r.last().body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]?.role).toBe('system');
    expect(messages[2]?.content).toMatch(/^\[trust=untrusted\]/);
    expect(r.last().headers.authorization).toBe('Bearer t-0000');
  });
  it('tool proposal is explicitly unsupported', async () => {
    const { p } = build('corp_gateway_structured');
    await expect(p.requestTool(socRequest())).rejects.toBeInstanceOf(CapabilityUnsupportedError);
  });
  it('provider error', async () => {
    const { p } = build('corp_gateway_error');
    await expect(p.generate(socRequest())).rejects.toMatchObject({ status: 502, retryable: true });
    await expect(p.generate(socRequest())).rejects.toBeInstanceOf(ProviderError);
  });
  it('malformed output', async () => {
    const { p } = build('corp_gateway_malformed');
    await expect(p.generateStructured(socRequest())).rejects.toBeInstanceOf(MalformedResponseError);
    expect((await p.generate(socRequest())).output_text).toMatch(/identity profile/);
  });
  it('registers and is built from its environment variables', () => {
    const registry = new ProviderRegistry([corpGatewayEntry], { env: { CORP_GATEWAY_URL: 'https://gw.example' } });
    expect(() => registry.get('corp_gateway')).toThrow(
      "provider 'corp_gateway' is not configured; set CORP_GATEWAY_TOKEN",
    );
    const ok = registry.withOptions({ env: { CORP_GATEWAY_URL: 'https://gw.example', CORP_GATEWAY_TOKEN: 't' } });
    expect(ok.get('corp_gateway').providerId).toBe('corp_gateway');
  });
});
