import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makeDirectory } from '@aeh/harness/directories';
import { errorMessage } from '@aeh/harness/errors';
import { type Command, Option } from '@commander-js/extra-typings';
import { CliError, EXIT, safeText } from '../common.js';

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port must be 0..65535 (got '${value}')`);
  return n;
};

const seconds = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new CliError(`--max-seconds must be 1..86400 (got '${value}')`);
  return n;
};

/**
 * `soclab mcp serve`: one scenario run served over MCP for an agent you start yourself (MCP Inspector, an SDK
 * agent); it waits for submit_finding, Ctrl-C or the budget, then scores and prints the outcome.
 *
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

  mcp
    .command('serve')
    .description(
      'serve one scenario run over MCP (Streamable HTTP on 127.0.0.1) for an agent you start yourself, e.g. MCP Inspector; scores the run when the agent submits its finding',
    )
    .option('--scenario <id>', 'scenario to run (fixture-data scenarios only)', 'BEN-001')
    .addOption(
      new Option('--mode <mode>', 'baseline or protected')
        .choices(['baseline', 'protected'] as const)
        .default('protected' as const),
    )
    .option('--port <n>', 'port (default 0: a free one)', port, 0)
    .option('--max-seconds <s>', 'wall-clock budget of the run (default 1800)', seconds, 1800)
    .option('--token-file <path>', 'where the run bearer token is written (mode 600)', 'runs/mcp-token')
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .action(async (opts) => {
      await import('../../modes/builtin.js');
      await import('../../modes/protected.js');
      const { getScenario, loadCorpus } = await import('../../scenarios/loader.js');
      const { needsMock } = await import('../../contracts/scenarios.js');
      const { McpAgentProvider } = await import('../../providers/mcp.js');
      const { approvedModelsFor } = await import('../../providers/registry.js');
      const { runScenario } = await import('../../scenarios/runner.js');
      const { openEvidenceStore } = await import('../../evidence/store.js');
      const corpus = loadCorpus();
      let scenario: ReturnType<typeof getScenario>;
      try {
        scenario = getScenario(opts.scenario, corpus);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      if (needsMock(scenario)) {
        throw new CliError(
          `scenario ${scenario.id} scripts the model's replies; an MCP agent runs the fixture-data scenarios (see: soclab scenarios)`,
          EXIT.usage,
        );
      }
      const tokenFile = resolve(opts.tokenFile);
      const provider = new McpAgentProvider({
        command: '',
        limits: { max_seconds: opts.maxSeconds, max_calls: 200 },
        attended: {
          port: opts.port,
          onReady: ({ url, token }) => {
            makeDirectory(dirname(tokenFile));
            writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
            chmodSync(tokenFile, 0o600);
            process.stderr.write(
              `soclab mcp serve: ${scenario.id} (${opts.mode}) at ${url}\n  bearer token in ${tokenFile} (send it as Authorization: Bearer <token>)\n  waiting for submit_finding (Ctrl-C ends the run)\n`,
            );
            // Machine-readable line for scripts: the first stdout line is the URL.
            process.stdout.write(`${url}\n`);
          },
        },
      });
      const aborter = new AbortController();
      const stop = () => aborter.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const store = await openEvidenceStore(opts.db);
      try {
        const result = await runScenario({
          scenario,
          corpus,
          mode: opts.mode,
          provider,
          evidence: store,
          approvedModels: approvedModelsFor(provider.providerId, provider.model),
          signal: aborter.signal,
        });
        const inv = result.investigation;
        const out = (line: string) => process.stdout.write(`${safeText(line)}\n`);
        out(`run      ${result.run_id}  (soclab verify-chain ${result.run_id})`);
        out(`status   ${inv.status}${inv.failure_reason ? `: ${inv.failure_reason}` : ''}`);
        out(`calls    ${inv.events.length} (${inv.proposals.length} through the ${opts.mode} port)`);
        if (result.oracle)
          out(`attack   ${result.outcome.attack_succeeded ? 'SUCCEEDED' : 'resisted'} (${result.oracle.name})`);
        out(`chain    ${result.chain.valid ? 'valid' : 'INVALID'} (${result.chain.length} events)`);
        if (result.outcome.attack_succeeded && opts.mode === 'protected') process.exitCode = EXIT.gate;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await store.close();
      }
    });
}
