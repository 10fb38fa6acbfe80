import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, soclabIsolated as soclab } from '../../helpers/cli.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';

describe('soclab providers', () => {
  it('lists every provider with capabilities and whether each is configured', async () => {
    const r = await soclab(['providers'], { SOCLAB_HTTP_AGENT_URL: 'http://127.0.0.1:8765/v1/agent' });
    expect(r.code).toBe(0);
    for (const id of PROVIDER_IDS) {
      expect(r.stdout).toMatch(new RegExp(`│ ${id} +│`));
    }
    expect(r.stdout).toMatch(/│ http +│ yes/);
    expect(r.stdout).toMatch(/│ anthropic +│ no: set ANTHROPIC_API_KEY/);
    expect(r.stdout).toContain(`3 of ${PROVIDER_IDS.length} providers ready`);
    expect(r.stdout).toMatch(/│ mcp +│ no: set SOCLAB_MCP_AGENT_COMMAND/);
  });

  it('--json prints the compatibility matrix', async () => {
    const r = await soclab(['providers', '--json']);
    const rows = JSON.parse(r.stdout) as Array<{ provider_id: string; configured: boolean; validation: string }>;
    expect(rows).toHaveLength(PROVIDER_IDS.length);
    expect(rows.find((x) => x.provider_id === 'http')).toMatchObject({ configured: false });
    expect(rows.every((x) => x.validation.length > 0)).toBe(true);
  });

  it('--check exits 2 with the variables to set when a provider cannot run', async () => {
    const bad = await soclab(['providers', '--check', 'http']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("provider 'http' is not configured; set SOCLAB_HTTP_AGENT_URL");
    const unknown = await soclab(['providers', '--check', 'htp']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown provider 'htp'");
    const ok = await soclab(['providers', '--check', 'http'], { SOCLAB_HTTP_AGENT_URL: 'http://127.0.0.1:1/v1/agent' });
    expect(ok.code).toBe(0);
  });

  it('--check says the provider was not contacted; --probe contacts it and exits 2 when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const env = { OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const configured = await soclab(['providers', '--check', 'openai_compatible'], env);
    expect(configured.code).toBe(0);
    expect(configured.stdout).toContain('openai_compatible: configured (not contacted; model default)');
    const probe = await soclab(['providers', '--check', 'openai_compatible', '--probe'], env);
    expect(probe.code).toBe(2);
    expect(probe.stderr).toMatch(
      /openai_compatible: probe failed: ProviderError: .*(Cannot connect|ECONNREFUSED|fetch failed)/,
    );
    const alone = await soclab(['providers', '--probe']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--probe needs --check <id>');
  }, 60_000);

  it('--probe reports the model the vendor answered as, and a wrong key loudly without the key', async () => {
    const key = 'sk-probe-0f1e2d3c4b5a6978';
    const server = await startOpenAIStandIn({
      apiKey: key,
      echoKey: true,
      reportModel: (m) => (m === 'gpt-4o-mini' ? 'gpt-4o-mini-2024-07-18' : m),
    });
    try {
      const base = { OPENAI_BASE_URL: `${server.url}/v1` };
      const ok = await soclab(['providers', '--check', 'openai', '--probe'], { ...base, OPENAI_API_KEY: key });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(
        /^openai: reachable \(asked for gpt-4o-mini, answered as gpt-4o-mini-2024-07-18, \d+ ms\)/,
      );
      expect(server.calls).toBe(1);
      const wrong = 'sk-wrong-77aa88bb99cc00dd';
      const bad = await soclab(['providers', '--check', 'openai', '--probe'], { ...base, OPENAI_API_KEY: wrong });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        'openai: probe failed: ProviderError: openai request failed: APICallError: Incorrect API key provided',
      );
      expect(bad.stderr + bad.stdout).not.toContain(wrong);
      expect(server.calls).toBe(2);
    } finally {
      await server.close();
    }
  }, 60_000);
});
