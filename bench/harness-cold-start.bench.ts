/**
 * CLI cold start: median wall time of `harness --version`, `harness list-plugins` and a 1-case `harness run`
 * (echo agent, console + JSON reports, run index in the bench's temporary folder), against a bare `node -e 0` in the same run (so the ratio is
 * meaningful on a noisy machine). The commands are alternated round by round, so load changes hit them alike.
 * Targets: --version <= 150 ms, list-plugins <= 300 ms, 1-case run <= 3x node -e 0. Uses the compiled CLI (npm run
 * build first: the bin runs the bundled CLI, scripts/build-bundles.mjs); the 1-case run is also timed through the tsc
 * output, so the bundle's gain is a same-run ratio.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const RUNS = 15;

const dir = mkdtempSync(join(tmpdir(), 'harness-cold-start-'));
writeFileSync(join(dir, 'one.jsonl'), `${JSON.stringify({ id: 'c1', input: 'What is 1 + 1?', expected: '2' })}\n`);
writeFileSync(
  join(dir, 'one.yaml'),
  'version: "1.0"\nname: one-case\nagent: { adapter: echo }\nevaluators: [contains]\nmetrics: [success_rate]\ntests: file://one.jsonl\n',
);
let runNo = 0;
const commands: Record<string, () => string[]> = {
  baseline: () => ['-e', '0'],
  version: () => [bin, '--version'],
  plugins: () => [bin, 'list-plugins'],
  // The run index is the bench's own (in its temporary folder), not the repository's runs/index.sqlite, which grows
  // with every run on the machine.
  oneCase: () => [
    bin,
    'run',
    join(dir, 'one.yaml'),
    '--out',
    join(dir, `run-${runNo++}`),
    '--runs-dir',
    dir,
    '--format',
    'console,json',
  ],
  // The same run through the tsc output (what the bin runs when the bundle is missing or stale).
  oneCaseTsc: () => [
    join(root, 'packages/harness/dist/cli/main.js'),
    'run',
    join(dir, 'one.yaml'),
    '--out',
    join(dir, `run-${runNo++}`),
    '--runs-dir',
    dir,
    '--format',
    'console,json',
  ],
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
for (let i = -1; i < RUNS; i++) {
  const order = i % 2 === 0 ? Object.keys(commands) : Object.keys(commands).reverse();
  for (const name of order) {
    const args = commands[name]!();
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore', env: { ...process.env, CI: '1' } });
    // Round -1 only warms the file cache.
    if (i >= 0) times[name]!.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}`);
  }
}
rmSync(dir, { recursive: true, force: true });
const median = (name: string) => {
  const sorted = [...times[name]!].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const baseline = median('baseline');
const version = median('version');
const plugins = median('plugins');
const oneCase = median('oneCase');
const oneCaseTsc = median('oneCaseTsc');
const bundled = existsSync(join(root, 'packages/harness/dist/bundle/cli.js'));
console.log(
  `machine: load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} (compare ratios)`,
);
const row = (name: string, ms: number, target: number) =>
  `${name.padEnd(22)} median ${ms.toFixed(0).padStart(4)} ms  (${(ms / baseline).toFixed(1)}x node -e 0; +${(ms - baseline).toFixed(0)} ms)  target <= ${target} ms  ${ms <= target ? 'OK' : 'MISSED'}`;
console.log(`node -e 0 (baseline)   median ${baseline.toFixed(0).padStart(4)} ms  over ${RUNS} runs`);
console.log(row('harness --version', version, 150));
console.log(row('harness list-plugins', plugins, 300));
console.log(
  `${'harness run, 1 case'.padEnd(22)} median ${oneCase.toFixed(0).padStart(4)} ms  (${(oneCase / baseline).toFixed(1)}x node -e 0; +${(oneCase - baseline).toFixed(0)} ms)  target <= 3.0x node -e 0  ${oneCase <= 3 * baseline ? 'OK' : 'MISSED'}`,
);
console.log(
  `${'  same, tsc output'.padEnd(22)} median ${oneCaseTsc.toFixed(0).padStart(4)} ms  (${(oneCaseTsc / baseline).toFixed(1)}x node -e 0); bin ${bundled ? 'bundled' : 'NOT bundled (run node scripts/build-bundles.mjs)'}: ${(oneCase / oneCaseTsc).toFixed(2)}x the tsc output`,
);
