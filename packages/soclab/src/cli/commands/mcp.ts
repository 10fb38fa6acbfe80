import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../common.js';

/**
 * `soclab mcp stdio`: the lab's MCP server on stdio, launched by an agent under test (`soclab campaign --provider
 * mcp --agent-transport stdio`). It serves the run named by SOCLAB_MCP_URL and SOCLAB_MCP_TOKEN, which the campaign
 * put in the agent's environment; stdout is the protocol, so nothing else is ever written there.
 */
export function register(program: Command): void {
  const mcp = program
    .command('mcp')
    .description("the lab's MCP server for free-form MCP agents (see docs/soclab/mcp-agents.md)");
  mcp
    .command('stdio')
    .description(
      "serve the current run's MCP tools on stdio (an agent launches this; needs SOCLAB_MCP_URL and SOCLAB_MCP_TOKEN)",
    )
    .action(async () => {
      const url = process.env.SOCLAB_MCP_URL?.trim();
      const token = process.env.SOCLAB_MCP_TOKEN?.trim();
      if (!url || !token) {
        throw new CliError(
          'soclab mcp stdio needs SOCLAB_MCP_URL and SOCLAB_MCP_TOKEN (soclab campaign --provider mcp sets them for the agent)',
          EXIT.usage,
        );
      }
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new CliError('SOCLAB_MCP_URL is not a URL', EXIT.usage);
      }
      // The run's endpoint is always on loopback; refuse to send the token anywhere else.
      if (parsed.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) {
        throw new CliError(
          'SOCLAB_MCP_URL must be an http://127.0.0.1 address (the lab binds loopback only)',
          EXIT.usage,
        );
      }
      const { runStdioBridge } = await import('../../mcp/stdio-bridge.js');
      await runStdioBridge({ url: parsed.toString(), token });
    });
}
