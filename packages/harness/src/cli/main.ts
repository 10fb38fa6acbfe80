import { readFileSync } from 'node:fs';
import { Command, CommanderError } from '@commander-js/extra-typings';
import * as compare from './commands/compare.js';
import * as exportCommand from './commands/export.js';
import * as flaky from './commands/flaky.js';
import * as history from './commands/history.js';
import * as indexCommand from './commands/index.js';
import * as listPlugins from './commands/list-plugins.js';
import * as merge from './commands/merge.js';
import * as run from './commands/run.js';
import * as runs from './commands/runs.js';
import * as validate from './commands/validate.js';
import * as view from './commands/view.js';
import * as worker from './commands/worker.js';
import { EXIT } from './common.js';

/**
 * `harness` entry point. Each command lives in `commands/<name>.ts` and exports `register(program)`;
 * command modules import their heavy dependencies lazily inside the action, so `--version` stays fast.
 * To add a command: import it here and append it to `commands`.
 */
const commands: { register(program: Command): void }[] = [
  run,
  validate,
  listPlugins,
  compare,
  exportCommand,
  runs,
  history,
  flaky,
  indexCommand,
  view,
  merge,
  worker,
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
  const program = new Command('harness')
    .description('Evaluate AI agents against declarative suites; score, compare and gate their runs')
    .version(version(), '-v, --version', 'print the harness version')
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors exit 2 (commander's default is 1, which we reserve for failed gates).
    .exitOverride((err: CommanderError) => {
      throw err;
    });
  for (const command of commands) command.register(program);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  // `harness runs list | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const { fail } = await import('./common.js');
    process.exitCode = fail(err);
  }
}

await main();
