import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { makeDirectory } from '../../core/directories.js';
import { CliError, EXIT } from '../common.js';

/** The starter files `harness init` writes, relative to the target folder. */
export const STARTER_FILES: Record<string, string> = {
  'harness.yaml': `# A starter suite: run it with  npx harness run harness.yaml
version: "1.0"
name: my-agent
agent:
  adapter: module
  options: { module: ./agent.ts#run }
metrics: [success_rate, latency]
thresholds:
  success_rate: { minimum: 0.8 }
tests:
  - id: greeting
    input: Say hello
    expected: hello
    evaluators: [{ name: contains, options: { case_sensitive: false } }]
  - id: refund
    input: Please refund order A1
    expected: refund
    tags: [billing]
    evaluators: [{ name: contains, options: { case_sensitive: false } }]
`,
  'agent.ts': `// The agent under test: replace the body with a call to your model or service.
// Return a string, or { output, tool_calls, usage, cost } (see docs/getting-started.md).
export async function run(input: string | Record<string, unknown>, _ctx: { signal: AbortSignal }) {
  const text = String(input).toLowerCase();
  if (text.includes('refund')) return 'Refund issued for order A1';
  return 'Hello! How can I help?';
}
`,
  '.github/workflows/harness.yml': `# Runs the suite on every push and pull request; a failed threshold fails the job (exit 1).
name: harness
on: [push, pull_request]
jobs:
  eval:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 20 }
      - run: npm ci
      - run: npx harness run harness.yaml --format console,json,junit
      - uses: actions/upload-artifact@v4
        if: always()
        with: { name: harness-runs, path: runs/ }
`,
};

/** Write the starter files into `dir`; refuses (writing nothing) when any of them exists. */
export function initProject(dir: string): string[] {
  const targets = Object.keys(STARTER_FILES).map((f) => join(dir, f));
  const existing = targets.filter((p) => existsSync(p));
  if (existing.length > 0) {
    throw new CliError(
      `refusing to overwrite ${existing.map((p) => relative(process.cwd(), p) || p).join(', ')} (move or delete it first)`,
      EXIT.usage,
    );
  }
  for (const [name, text] of Object.entries(STARTER_FILES)) {
    const path = join(dir, name);
    makeDirectory(dirname(path));
    // 'wx': fail rather than overwrite if the file appeared since the check.
    writeFileSync(path, text, { flag: 'wx' });
  }
  return targets;
}

export function register(program: Command): void {
  program
    .command('init')
    .description(
      'write a starter suite (harness.yaml), an agent stub (agent.ts) and a CI workflow here; never overwrites',
    )
    .option('--dir <dir>', 'folder to write into', '.')
    .action((opts) => {
      const written = initProject(opts.dir);
      for (const p of written) process.stdout.write(`created ${relative(process.cwd(), p) || p}\n`);
      process.stdout.write('next: npx harness run harness.yaml\n');
    });
}
