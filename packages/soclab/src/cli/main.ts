// First: decides how zod validates before any schema is built (see zod-mode.ts).
import './zod-mode.js';
import { type CommandModule, createProgram, runProgram } from '@aeh/harness/cli';
import type { Command } from '@commander-js/extra-typings';
import * as attack from './commands/attack.js';
import * as campaign from './commands/campaign.js';
import * as compare from './commands/compare.js';
import * as conformance from './commands/conformance.js';
import * as demo from './commands/demo.js';
import * as investigate from './commands/investigate.js';
import * as mcp from './commands/mcp.js';
import * as policy from './commands/policy.js';
import * as providers from './commands/providers.js';
import * as report from './commands/report.js';
import * as scenarios from './commands/scenarios.js';
import * as scenariosCheck from './commands/scenarios-check.js';
import * as serve from './commands/serve.js';
import * as verifyChain from './commands/verify-chain.js';
import * as versionCommand from './commands/version.js';
import * as worker from './commands/worker.js';
import { fail } from './common.js';

/**
 * `soclab` entry point. Each command lives in `commands/<name>.ts` and exports `register(program)`.
 * To add a command: import it here and append it to `commands`.
 */
const commands: CommandModule[] = [
  scenarios,
  scenariosCheck,
  investigate,
  verifyChain,
  providers,
  policy,
  serve,
  mcp,
  campaign,
  compare,
  conformance,
  attack,
  report,
  demo,
  worker,
  versionCommand,
];

export function buildProgram(): Command {
  return createProgram({
    name: 'soclab',
    description: 'Assurance lab for AI SOC agents: adversarial scenarios, controls, evidence and authority',
    packageJson: new URL('../../package.json', import.meta.url),
    commands,
  });
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  await runProgram(program, argv, fail);
}

await main();
