#!/usr/bin/env node
// `npm run demo`: runs the example suites through the built CLIs and writes their reports under runs/.
// Each step is one CLI invocation; add a step to demo more. Needs `npm run build` (npm ci runs it).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const harness = join(root, 'packages/harness/bin/harness.js');
const soclab = join(root, 'packages/soclab/bin/soclab.js');

/** One demo step: a title, the CLI to run, its arguments, and the exit codes that count as success. */
const steps = [
  {
    title: 'soclab: baseline versus protected with the scripted mock (reports in runs/demo)',
    bin: soclab,
    args: ['demo'],
    ok: [0],
  },
  {
    title: 'harness: customer-support suite (module agent, text + tool-trajectory checks)',
    bin: harness,
    args: ['run', 'benchmarks/examples/customer-support.yaml', '--format', 'console,json'],
    ok: [0],
  },
];

if (
  !existsSync(join(root, 'packages/harness/dist/cli/main.js')) ||
  !existsSync(join(root, 'packages/soclab/dist/cli/main.js'))
) {
  console.error('demo: the CLIs are not built; run `npm run build` first');
  process.exit(3);
}

let failed = 0;
for (const step of steps) {
  console.log(`\n=== ${step.title}\n$ ${[step.bin.replace(`${root}/`, ''), ...step.args].join(' ')}\n`);
  const r = spawnSync(process.execPath, [step.bin, ...step.args], { cwd: root, stdio: 'inherit' });
  if (!step.ok.includes(r.status ?? -1)) {
    failed++;
    console.error(`demo: step failed with exit code ${r.status}`);
  }
}
console.log(failed === 0 ? '\ndemo: done; reports are in runs/' : `\ndemo: ${failed} step(s) failed`);
process.exit(failed === 0 ? 0 : 1);
