/**
 * What soclab's precompiled built-in assets save (issue 22; packages/soclab/src/precompile/): short commands as fresh
 * processes of the built CLI, with the build's artifacts (the bundled Cedar policy folder and scenario corpus read
 * from dist/precompiled) and without them (`SOCLAB_NO_PRECOMPILED=1`: YAML parsing, zod and Cedar validation as
 * before). The same-run baseline is the run without; with and without alternate round by round (medians of
 * BENCH_ROUNDS, default 5), and each run is checked to have used the artifacts or not (`NODE_DEBUG=soclab`).
 * Both sides share the bin's V8 code cache (written by the first run of each command).
 * Needs `npm run build`. Run from the repository root: `npx tsx bench/soclab-precompiled.bench.ts`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

interface Figures {
  wall: number;
  cpu: number;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const root = process.cwd();
const bin = join(root, 'packages/soclab/bin/soclab.js');
if (!existsSync(join(root, 'packages/soclab/dist/precompiled')) || !existsSync('/usr/bin/time')) {
  console.log('soclab-precompiled: needs `npm run build` (packages/soclab/dist/precompiled) and GNU time; skipped');
  process.exit(0);
}
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (figures scale with contention; compare ratios)`,
);

const dir = mkdtempSync(join(tmpdir(), 'soclab-precompiled-bench-'));
const commands: [string, (out: string) => string[]][] = [
  ['soclab demo', (out) => ['demo', '--out', out, '--db', `${out}.sqlite`]],
  [
    'soclab campaign --scenario BEN-001',
    (out) => ['campaign', '--scenario', 'BEN-001', '--out', out, '--db', `${out}.sqlite`],
  ],
  ['soclab policy test', () => ['policy', 'test']],
];
let run = 0;
/** One fresh process under GNU time (its figures on a file descriptor of their own, after the child's stderr). */
function once(args: string[], artifacts: boolean): Figures {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    CI: '1',
    SOCLAB_DEBUG: '',
    SOCLAB_POLICY_DIR: '',
    SOCLAB_SCENARIO_DIR: '',
    NODE_DEBUG: 'soclab',
    SOCLAB_NO_PRECOMPILED: artifacts ? '' : '1',
  };
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'BENCHTIME %U %S', process.execPath, bin, ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`soclab ${args[0]} failed (${r.status}): ${r.stderr}`);
  const used = /: from .*\/precompiled\//.test(r.stderr);
  if (used !== artifacts) {
    throw new Error(`soclab ${args[0]}: artifacts ${used ? 'used' : 'not used'} (stale build? npm run build)`);
  }
  const m = /BENCHTIME ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (!m) throw new Error('no figures from GNU time');
  return { wall, cpu: Number(m[1]) + Number(m[2]) };
}

try {
  for (const [label, argsFor] of commands) {
    once(argsFor(join(dir, `warm-${run++}`)), true); // warm-up: the code cache, the file cache
    const runs: Record<'with' | 'without', Figures[]> = { with: [], without: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)) {
        runs[side].push(once(argsFor(join(dir, `run-${run++}`)), side === 'with'));
      }
    }
    const med = (xs: Figures[]) => ({ cpu: median(xs.map((x) => x.cpu)), wall: median(xs.map((x) => x.wall)) });
    const a = med(runs.with);
    const b = med(runs.without);
    console.log(
      `${label}, fresh process, median of ${ROUNDS}: with artifacts ${(a.cpu * 1000).toFixed(0)} ms CPU / ${(a.wall * 1000).toFixed(0)} ms wall; without ${(b.cpu * 1000).toFixed(0)} ms CPU / ${(b.wall * 1000).toFixed(0)} ms wall; CPU ${(a.cpu / b.cpu).toFixed(2)}x (saves ${((b.cpu - a.cpu) * 1000).toFixed(0)} ms)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
