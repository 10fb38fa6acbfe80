/**
 * `soclab demo` speed: baseline then protected over the whole corpus with the scripted mock (66 scenario runs:
 * 30 attacks and 3 benign controls per mode), each scenario on its own hash chain in a SQLite evidence file, both
 * campaigns stored as harness run folders, scored, and the HTML/JSON/text reports written. PDF excluded.
 * Target: <= 3 s wall on the CI machine.
 *
 * 1. The CLI as a user runs it (a fresh process: module loading, policy compilation, everything), with the built
 *    CLI when `npm run build` has run, else through tsx.
 * 2. In one warm process: the same study at --concurrency 1 and --concurrency 4 (median of a few rounds), and the
 *    speed-up. The runs are CPU-bound JavaScript on one thread, so concurrency mostly overlaps SQLite and I/O waits.
 * Run from the repository root: `npx tsx bench/soclab-demo.bench.ts`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

// As the CLI does: React's production build for the reports (loaded with the study below).
process.env.NODE_ENV ??= 'production';
const { runStudy } = await import('../packages/soclab/src/campaign/study.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MS = 3000;
const dir = mkdtempSync(join(tmpdir(), 'soclab-demo-bench-'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (figures scale with contention; compare ratios)`,
);

try {
  // 1. Cold CLI.
  const built = existsSync('packages/soclab/dist/cli/main.js');
  const argv = built ? ['packages/soclab/bin/soclab.js'] : ['--import', 'tsx', 'packages/soclab/src/cli/main.ts'];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...argv, 'demo', '--out', join(dir, 'cli'), '--db', join(dir, 'cli.sqlite')], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
  });
  const cold = performance.now() - t0;
  if (r.status !== 0) throw new Error(`soclab demo failed (${r.status}): ${r.stderr}`);
  console.log(
    `soclab demo, fresh process (${built ? 'built CLI' : 'tsx, unbuilt'}): ${cold.toFixed(0)} ms wall, target <= ${TARGET_MS} ms -> ${cold <= TARGET_MS ? 'OK' : 'OVER'}`,
  );
  for (const line of r.stdout.split('\n').slice(0, 2)) console.log(`  ${line}`);

  // 2. Warm, in process, by concurrency.
  const study = (concurrency: number, round: number) =>
    runStudy(
      { compare: true, concurrency, out: join(dir, `c${concurrency}-${round}`) },
      { evidenceUrl: join(dir, `c${concurrency}-${round}.sqlite`) },
    );
  await study(4, -1); // warm-up: module loading, policy compilation, JIT
  const walls: Record<number, number[]> = { 1: [], 4: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of [1, 4]) {
      const t = performance.now();
      const result = await study(c, round);
      walls[c]!.push(performance.now() - t);
      if (result.scorecards.main.assessment.authority.level !== 'L4') throw new Error('unexpected protected level');
    }
  }
  const c1 = median(walls[1]!);
  const c4 = median(walls[4]!);
  console.log(`warm study (66 scenario runs + reports), median of ${ROUNDS}:`);
  console.log(`  --concurrency 1: ${c1.toFixed(0)} ms (${(c1 / 66).toFixed(1)} ms per scenario run)`);
  console.log(`  --concurrency 4: ${c4.toFixed(0)} ms (${(c4 / 66).toFixed(1)} ms per scenario run)`);
  console.log(`  speed-up with --concurrency 4: x${(c1 / c4).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
