/**
 * The fixed cost of the smallest job a CI pipeline runs with soclab: `soclab campaign --scenario BEN-001` (one benign
 * scenario in protected mode: the policy folder loaded and preparsed, one run on its own hash chain, scoring, the
 * scorecard and reports written) as a fresh process of the built CLI. Two baselines measured in the same run:
 *  - `node -e 0`, Node's own start (the floor of any CLI), and
 *  - the same campaign in this warm process (modules loaded, policies compiled, JIT warm), so that fresh minus warm
 *    is what a fresh process pays before and around the work itself, in milliseconds of wall and CPU.
 * Rounds alternate the three (medians of BENCH_ROUNDS, default 7), so a change of load hits all of them.
 * Needs `npm run build` and GNU time. Run from the repository root: `npx tsx bench/soclab-fixed-cost.bench.ts`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasGnuTime, timedProcess } from './support/timed-process.js';

// As the CLI does: React's production build for the reports.
process.env.NODE_ENV ??= 'production';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const root = process.cwd();
const bin = join(root, 'packages/soclab/bin/soclab.js');
if (!existsSync(join(root, 'packages/soclab/dist/bundle/cli.cjs')) || !hasGnuTime()) {
  console.log('soclab-fixed-cost: needs `npm run build` (the bundled CLI) and GNU time; skipped');
  process.exit(0);
}
const { runStudy } = await import('../packages/soclab/src/campaign/study.js');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = mkdtempSync(join(tmpdir(), 'soclab-fixed-cost-'));
const env = { ...process.env, NO_COLOR: '1', CI: '1' };
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (figures scale with contention; compare ratios)`,
);

try {
  const floor = () => {
    const r = timedProcess(process.execPath, ['-e', '0'], { cwd: root, env });
    return { wall: r.wall * 1000, cpu: r.cpu * 1000 };
  };
  const fresh = (round: number) => {
    const out = join(dir, `fresh-${round}`);
    const r = timedProcess(
      process.execPath,
      [bin, 'campaign', '--scenario', 'BEN-001', '--out', out, '--db', `${out}.sqlite`],
      { cwd: root, env },
    );
    if (r.status !== 0) throw new Error(`soclab campaign failed (${r.status}): ${r.stderr}`);
    return { wall: r.wall * 1000, cpu: r.cpu * 1000 };
  };
  const warm = async (round: number) => {
    const out = join(dir, `warm-${round}`);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await runStudy({ mode: 'protected', scenarios: ['BEN-001'], out }, { evidenceUrl: `${out}.sqlite` });
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    if (result.main.records.length !== 1) throw new Error(`expected one run, got ${result.main.records.length}`);
    return { wall, cpu: (cpu.user + cpu.system) / 1000 };
  };

  // Warm-ups: this process's modules, policies and JIT; the CLI's code cache for `campaign`.
  for (let i = 0; i < 3; i++) await warm(-1 - i);
  fresh(-1);
  const runs: Record<'floor' | 'fresh' | 'warm', { wall: number; cpu: number }[]> = { floor: [], fresh: [], warm: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['floor', 'fresh', 'warm'] as const) : (['warm', 'fresh', 'floor'] as const);
    for (const what of order) {
      if (what === 'floor') runs.floor.push(floor());
      else if (what === 'fresh') runs.fresh.push(fresh(round));
      else runs.warm.push(await warm(round));
    }
  }
  const wall = (k: keyof typeof runs) => median(runs[k].map((r) => r.wall));
  const cpu = (k: keyof typeof runs) => median(runs[k].map((r) => r.cpu));
  console.log(`medians of ${ROUNDS} rounds:`);
  console.log(
    `  node -e 0                                   ${wall('floor').toFixed(0)} ms wall, ${cpu('floor').toFixed(0)} ms CPU`,
  );
  console.log(
    `  soclab campaign --scenario BEN-001, fresh   ${wall('fresh').toFixed(0)} ms wall, ${cpu('fresh').toFixed(0)} ms CPU`,
  );
  console.log(
    `  the same campaign in a warm process         ${wall('warm').toFixed(0)} ms wall, ${cpu('warm').toFixed(0)} ms CPU`,
  );
  console.log(
    `fresh campaign / node -e 0: wall ${(wall('fresh') / wall('floor')).toFixed(2)}x, CPU ${(cpu('fresh') / cpu('floor')).toFixed(2)}x`,
  );
  console.log(
    `fixed cost of a fresh process (fresh - warm): ${(wall('fresh') - wall('warm')).toFixed(0)} ms wall, ${(cpu('fresh') - cpu('warm')).toFixed(0)} ms CPU; of which Node's start ${wall('floor').toFixed(0)} ms wall, ${cpu('floor').toFixed(0)} ms CPU`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
