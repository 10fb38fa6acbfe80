import type { Command } from '@commander-js/extra-typings';
import * as compare from './commands/compare.js';
import * as exportCommand from './commands/export.js';
import * as flaky from './commands/flaky.js';
import * as history from './commands/history.js';
import * as importCommand from './commands/import.js';
import * as init from './commands/init.js';
import * as judge from './commands/judge.js';
import * as listPlugins from './commands/list-plugins.js';
import * as merge from './commands/merge.js';
import * as migrate from './commands/migrate.js';
import * as run from './commands/run.js';
import * as indexCommand from './commands/run-index.js';
import * as runs from './commands/runs.js';
import * as validate from './commands/validate.js';
import * as view from './commands/view.js';
import * as worker from './commands/worker.js';
import { EXIT, wantsJson } from './common.js';
import { type CommandModule, createProgram, runProgram } from './program.js';

/**
 * `harness` entry point. Each command lives in `commands/<name>.ts` and exports `register(program)`;
 * command modules import their heavy dependencies lazily inside the action, so `--version` stays fast.
 * To add a command: import it here and append it to `commands`.
 */
const commands: CommandModule[] = [
  init,
  run,
  validate,
  listPlugins,
  compare,
  exportCommand,
  runs,
  history,
  flaky,
  indexCommand,
  judge,
  view,
  merge,
  worker,
  migrate,
  importCommand,
];

export function buildProgram(): Command {
  return createProgram({
    name: 'harness',
    description: 'Evaluate AI agents against declarative suites; score, compare and gate their runs',
    packageJson: new URL('../../package.json', import.meta.url),
    commands,
  });
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  codeUsageErrors(program, argv);
  await runProgram(program, argv, async (err) => (await import('./common.js')).fail(err));
}

/**
 * The option parser's own usage errors (unknown option, bad flag value) read like every other harness error: the
 * code first (`harness: [AEH_ERR_CLI] ...`), and one JSON object on stdout with --json / --format json
 * (docs/errors.md). They used to print commander's bare `error: ...` and nothing on stdout for a JSON consumer.
 */
function codeUsageErrors(command: Command, argv: readonly string[]): void {
  command.configureOutput({
    outputError: (text, write) => {
      const message = text.replace(/^error: /, '').trimEnd();
      write(`harness: [AEH_ERR_CLI] ${message}\n`);
      if (wantsJson(argv)) {
        const error = { code: 'AEH_ERR_CLI', message, exit_code: EXIT.usage };
        process.stdout.write(`${JSON.stringify({ error })}\n`);
      }
    },
  });
  for (const sub of command.commands) codeUsageErrors(sub as Command, argv);
}

await main();
