import { readFileSync } from 'node:fs';
import { Command, CommanderError } from '@commander-js/extra-typings';
import * as campaign from './commands/campaign.js';
import * as compare from './commands/compare.js';
import * as demo from './commands/demo.js';
import * as investigate from './commands/investigate.js';
import * as policy from './commands/policy.js';
import * as providers from './commands/providers.js';
import * as report from './commands/report.js';
import * as scenarios from './commands/scenarios.js';
import * as serve from './commands/serve.js';
import * as verifyChain from './commands/verify-chain.js';
import * as versionCommand from './commands/version.js';
import { EXIT, fail } from './common.js';

/**
 * `soclab` entry point. Each command lives in `commands/<name>.ts` and exports `register(program)`.
 * To add a command: import it here and append it to `commands`.
 */
const commands: { register(program: Command): void }[] = [
  scenarios,
  investigate,
  verifyChain,
  providers,
  policy,
  serve,
  campaign,
  compare,
  report,
  demo,
  versionCommand,
];

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}

export function buildProgram(): Command {
  const program = new Command('soclab')
    .description('Assurance lab for AI SOC agents: adversarial scenarios, controls, evidence and authority')
    .version(version(), '-v, --version', 'print the soclab version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err: CommanderError) => {
      throw err;
    });
  for (const command of commands) command.register(program);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  // A closed pipe (`soclab scenarios | head`) is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = fail(err);
  }
}

await main();
