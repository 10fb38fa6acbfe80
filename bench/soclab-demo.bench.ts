/**
 * `soclab demo` speed: baseline then protected over the whole corpus with the scripted mock (66 scenario runs:
 * 30 attacks and 3 benign controls per mode), each scenario on its own hash chain in a SQLite evidence file, both
 * campaigns stored as harness run folders, scored, and the HTML/JSON/text reports written. PDF excluded.
 * Targets: <= 3 s wall on the CI machine; the fresh process <= 1.5x the same study in a warm process (a ratio
 * measured in one run, so it holds on a slower or busier machine).
 *
 * 1. The CLI as a user runs it (a fresh process: module loading, policy compilation, everything), with the built
 *    CLI when `npm run build` has run, else through tsx. Wall, and CPU (user+sys) when GNU time is installed.
 * 2. In this warm process: the same study at --concurrency 1 and --concurrency 4 (the CLI's default), and the
 *    speed-up. The runs are CPU-bound JavaScript on one thread, so concurrency mostly overlaps SQLite and I/O waits.
 * Fresh and warm runs alternate round by round (medians of BENCH_ROUNDS, default 3), so a change of load during the
 * benchmark hits both sides of the ratio.
 * Run from the repository root: `npx tsx bench/soclab-demo.bench.ts`.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

// A `tsc -b` after `npm run build` leaves the bundle and the precompiled artifacts older than the build: the bin then
// runs the unbundled CLI and every load compiles the policy folder and corpus in full (same results, ~35% more
// instructions). Nothing fails, so say it here rather than time the wrong thing silently.
const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const tscBuilt = Math.max(
  ...['packages/soclab', 'packages/harness', 'packages/models'].map((p) => mtime(`${p}/dist/.tsbuildinfo`)),
);
const artifacts = existsSync('packages/soclab/dist/precompiled') ? readdirSync('packages/soclab/dist/precompiled') : [];
const stale = [
  mtime('packages/soclab/dist/bundle/cli.cjs') < tscBuilt ? 'the bundled CLI' : '',
  artifacts.some((f) => mtime(`packages/soclab/dist/precompiled/${f}`) < tscBuilt) ? 'the precompiled artifacts' : '',
].filter(Boolean);
if (stale.length > 0)
  console.log(`warning: older than the tsc build: ${stale.join(', ')} (run \`npm run build\` first)`);

try {
  const built = existsSync('packages/soclab/dist/cli/main.js');
  const argv = built ? ['packages/soclab/bin/soclab.js'] : ['--import', 'tsx', 'packages/soclab/src/cli/main.ts'];
  const gnuTime = existsSync('/usr/bin/time');
  /** 1. The CLI in a fresh process: wall, and CPU of the child when GNU time can report it. */
  const fresh = (round: number) => {
    const args = [...argv, 'demo', '--out', join(dir, `cli-${round}`), '--db', join(dir, `cli-${round}.sqlite`)];
    const env = { ...process.env, NO_COLOR: '1', CI: '1' };
    const t0 = performance.now();
    const r: SpawnSyncReturns<string> = gnuTime
      ? spawnSync('/usr/bin/time', ['-f', 'TIME %U %S', process.execPath, ...args], { encoding: 'utf8', env })
      : spawnSync(process.execPath, args, { encoding: 'utf8', env });
    const wall = performance.now() - t0;
    if (r.status !== 0) throw new Error(`soclab demo failed (${r.status}): ${r.stderr}`);
    const m = /TIME ([\d.]+) ([\d.]+)/.exec(r.stderr);
    return { wall, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : Number.NaN, stdout: r.stdout };
  };
  /** 2. The same study in this process. */
  const study = async (concurrency: number, round: number) => {
    const c0 = process.cpuUsage();
    const t = performance.now();
    const result = await runStudy(
      { compare: true, concurrency, out: join(dir, `c${concurrency}-${round}`) },
      { evidenceUrl: join(dir, `c${concurrency}-${round}.sqlite`) },
    );
    const wall = performance.now() - t;
    const cpu = process.cpuUsage(c0);
    // The scripted demo agent is held at L1 in both modes by design (baseline by its mandatory gates, protected by
    // its errored or failed runs); another level means the study changed, so its timings compare with no older one.
    const levels = [result.scorecards.baseline, result.scorecards.main].map((s) => s?.assessment.authority.level);
    if (round === 0 && levels.some((l) => l !== 'L1')) {
      console.log(`  note: authority levels ${levels.join(' / ')} (baseline / protected); the demo gives L1 / L1`);
    }
    return { wall, cpu: (cpu.user + cpu.system) / 1000 };
  };
  await study(4, -1); // warm-up: module loading, policy compilation, JIT
  const runs: Record<string, { wall: number; cpu: number }[]> = { fresh: [], c1: [], c4: [] };
  let firstLines: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['fresh', 'c1', 'c4'] : ['c4', 'c1', 'fresh'];
    for (const what of order) {
      if (what === 'fresh') {
        const f = fresh(round);
        firstLines = f.stdout.split('\n').slice(0, 2);
        runs.fresh!.push(f);
      } else runs[what]!.push(await study(what === 'c1' ? 1 : 4, round));
    }
  }
  const wall = (k: string) => median(runs[k]!.map((r) => r.wall));
  const cpu = (k: string) => median(runs[k]!.map((r) => r.cpu));
  const cold = wall('fresh');
  const c1 = wall('c1');
  const c4 = wall('c4');
  console.log(
    `soclab demo, fresh process (${built ? 'built CLI' : 'tsx, unbuilt'}), median of ${ROUNDS}: ${cold.toFixed(0)} ms wall, ${cpu('fresh').toFixed(0)} ms CPU; target <= ${TARGET_MS} ms -> ${cold <= TARGET_MS ? 'OK' : 'OVER'}`,
  );
  for (const line of firstLines) console.log(`  ${line}`);
  console.log(`warm study (66 scenario runs + reports), median of ${ROUNDS}:`);
  console.log(`  --concurrency 1: ${c1.toFixed(0)} ms (${(c1 / 66).toFixed(1)} ms per scenario run)`);
  console.log(
    `  --concurrency 4: ${c4.toFixed(0)} ms wall, ${cpu('c4').toFixed(0)} ms CPU (${(c4 / 66).toFixed(1)} ms per scenario run)`,
  );
  console.log(`  speed-up with --concurrency 4: x${(c1 / c4).toFixed(2)}`);
  // On a loaded machine the warm study's wall time is mostly waiting for a core, which flatters the wall ratio;
  // the CPU ratio does not stretch that way. The verdict takes the larger of the two.
  // What the fresh process pays that the warm study does not, in milliseconds: the fixed cost itself.
  console.log(
    `fixed cost of a fresh process (fresh - warm): ${(cold - c4).toFixed(0)} ms wall, ${(cpu('fresh') - cpu('c4')).toFixed(0)} ms CPU`,
  );
  const wallRatio = cold / c4;
  const cpuRatio = cpu('fresh') / cpu('c4');
  const ratio = Number.isNaN(cpuRatio) ? wallRatio : Math.max(wallRatio, cpuRatio);
  console.log(
    `fresh process / warm study (both --concurrency 4): wall ${wallRatio.toFixed(2)}x, CPU ${cpuRatio.toFixed(2)}x; target <= 1.5x -> ${ratio <= 1.5 ? 'OK' : 'OVER'}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
