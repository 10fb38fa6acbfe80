import { ModelRequest, ProviderError } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { McpAgentProvider } from '../../../src/providers/mcp.js';
import { checkProviderSelection, isLiveProvider, soclabProviderRegistry } from '../../../src/providers/registry.js';

describe('the mcp provider entry', () => {
  it('is unconfigured without an agent command, and names the variable to set', () => {
    const registry = soclabProviderRegistry({ env: {} });
    expect(() => checkProviderSelection(registry, 'mcp')).toThrow(
      "provider 'mcp' is not configured; set SOCLAB_MCP_AGENT_COMMAND",
    );
    expect(isLiveProvider('mcp')).toBe(true);
  });

  it('reads the transport, the extra variables and the budgets from the environment', () => {
    const registry = soclabProviderRegistry({
      env: {
        SOCLAB_MCP_AGENT_COMMAND: 'node agent.mjs',
        SOCLAB_MCP_AGENT_TRANSPORT: 'stdio',
        SOCLAB_MCP_AGENT_PASS_ENV: ' ANTHROPIC_API_KEY, ,OPENAI_API_KEY ',
        SOCLAB_MCP_MAX_CALLS: '25',
      },
    });
    const provider = registry.get('mcp', 'claude-agent') as McpAgentProvider;
    expect(provider).toBeInstanceOf(McpAgentProvider);
    expect(provider).toMatchObject({ providerId: 'mcp', model: 'claude-agent', transport: 'stdio' });
    expect(new McpAgentProvider({ command: 'node a.mjs' }).transport).toBe('http');
  });

  it('rejects bad settings with the variable and the value', () => {
    const build = (env: Record<string, string>) => () =>
      McpAgentProvider.fromEnv({ SOCLAB_MCP_AGENT_COMMAND: 'node a.mjs', ...env });
    expect(build({ SOCLAB_MCP_AGENT_TRANSPORT: 'ftp' })).toThrow(
      "SOCLAB_MCP_AGENT_TRANSPORT must be http or stdio (got 'ftp')",
    );
    expect(build({ SOCLAB_MCP_MAX_CALLS: 'abc' })).toThrow(
      "SOCLAB_MCP_MAX_CALLS must be a positive number (got 'abc')",
    );
    expect(build({ SOCLAB_MCP_MAX_SECONDS: '-5' })).toThrow(
      "SOCLAB_MCP_MAX_SECONDS must be a positive number (got '-5')",
    );
    expect(() => new McpAgentProvider({ command: '   ' })).toThrow('needs an agent command');
  });

  it('answers no model request: an MCP agent investigates by itself', async () => {
    const provider = new McpAgentProvider({ command: 'node a.mjs' });
    const request = ModelRequest.parse({ system_prompt: 'x' });
    await expect(provider.generateStructured(request)).rejects.toThrow(ProviderError);
    await expect(provider.generate(request)).rejects.toThrow(/chooses its own steps/);
  });
});
