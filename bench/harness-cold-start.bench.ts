/**
 * CLI cold start: median wall time of `harness --version` and `harness list-plugins`, against a bare
 * `node -e 0` in the same run (so the ratio is meaningful on a noisy machine).
 * Targets: --version <= 150 ms, list-plugins <= 300 ms. Uses the compiled CLI (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const RUNS = 15;

function median(args: string[]): number {
  const times: number[] = [];
  spawnSync(process.execPath, args, { cwd: root }); // warm the file cache
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const baseline = median(['-e', '0']);
const version = median([bin, '--version']);
const plugins = median([bin, 'list-plugins']);
const row = (name: string, ms: number, target: number) =>
  `${name.padEnd(22)} median ${ms.toFixed(0).padStart(4)} ms  (${(ms / baseline).toFixed(1)}x node -e 0; +${(ms - baseline).toFixed(0)} ms)  target <= ${target} ms  ${ms <= target ? 'OK' : 'MISSED'}`;
console.log(`node -e 0 (baseline)   median ${baseline.toFixed(0).padStart(4)} ms  over ${RUNS} runs`);
console.log(row('harness --version', version, 150));
console.log(row('harness list-plugins', plugins, 300));
