import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, soclabIsolated as soclab } from '../../helpers/cli.js';

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
});
