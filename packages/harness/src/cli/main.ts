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
  await runProgram(buildProgram(), argv, async (err) => (await import('./common.js')).fail(err));
}

await main();
