/**
 * Would a V8 startup snapshot cut `soclab demo`'s fixed cost? (issue 22: the one start-up lever not measured before.)
 * Node 20 can start from a snapshot only with a process flag (`node --snapshot-blob`), so this measures the best case
 * a launcher could get, not something the bin can ship:
 *  - A: the bin as users run it (the CommonJS bundle through V8's code cache, scripts/code-cache-loader.mjs);
 *  - B: a snapshot built here from the same bundle with every module evaluated, `main` run on deserialisation.
 * Native modules (better-sqlite3) and Cedar's WebAssembly cannot be in a snapshot: B loads them at run time, as A does.
 * Why B is not shipped even where it is faster: module-level state is frozen at build time (environment variables
 * read at load, anything random), and the blob is tied to one Node binary and its V8 flags.
 * Rounds alternate A and B (medians of BENCH_ROUNDS, default 5). Needs `npm run build` and GNU time.
 * Run from the repository root: `npx tsx bench/soclab-startup-snapshot.bench.ts`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasGnuTime, timedProcess } from './support/timed-process.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const root = process.cwd();
const bin = join(root, 'packages/soclab/bin/soclab.js');
const bundle = join(root, 'packages/soclab/dist/bundle/cli.cjs');
if (!existsSync(bundle) || !hasGnuTime()) {
  console.log('soclab-startup-snapshot: needs `npm run build` (the bundled CLI) and GNU time; skipped');
  process.exit(0);
}
// The V8 flags bin/soclab.js sets for short commands: a snapshot only loads under the flags it was built with.
const FLAGS = ['--liftoff-only', '--wasm-lazy-validation', '--interrupt-budget=135168'];
const binText = readFileSync(bin, 'utf8');
const missing = FLAGS.filter((f) => !binText.includes(`'${f}'`));
if (missing.length > 0) throw new Error(`bin/soclab.js no longer sets ${missing.join(', ')}: update FLAGS here`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = mkdtempSync(join(tmpdir(), 'soclab-snapshot-'));
const env = { ...process.env, NO_COLOR: '1', CI: '1' };
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (figures scale with contention; compare ratios)`,
);

// The snapshot's entry: evaluate the bundle with its last statement (`void main();`) turned into a hand-over, using
// only built-in modules (all a snapshot builder may require); packages are required once the process is running.
const builder = `
const { createRequire, builtinModules } = require('node:module');
const { startupSnapshot } = require('node:v8');
const { readFileSync } = require('node:fs');
const { dirname } = require('node:path');
const file = ${JSON.stringify(bundle)};
const source = readFileSync(file, 'latin1');
const entry = source.replace(/\\nvoid main\\(\\);\\n/, '\\nglobalThis.__snapshotMain = main;\\n');
if (entry === source) throw new Error('the bundle does not end in "void main();"');
const builtins = new Set(builtinModules);
let runtimeRequire = null;
const load = (id) => {
  if (runtimeRequire) return runtimeRequire(id);
  if (id.startsWith('node:') || builtins.has(id)) return require(id);
  throw new Error('a package required while building the snapshot: ' + id);
};
const module = { exports: {} };
new Function('exports', 'require', 'module', '__filename', '__dirname', entry)(module.exports, load, module, file, dirname(file));
startupSnapshot.setDeserializeMainFunction(() => {
  runtimeRequire = createRequire(file);
  globalThis[Symbol.for('aeh.import')] = (specifier) => import(specifier);
  process.argv.splice(1, 0, ${JSON.stringify(bin)});
  globalThis.__snapshotMain();
});
`;

try {
  const builderFile = join(dir, 'build-snapshot.cjs');
  const blob = join(dir, 'soclab.blob');
  writeFileSync(builderFile, builder);
  const built = timedProcess(process.execPath, [...FLAGS, '--snapshot-blob', blob, '--build-snapshot', builderFile], {
    cwd: root,
    env,
  });
  if (built.status !== 0) throw new Error(`building the snapshot failed (${built.status}): ${built.stderr}`);
  console.log(`snapshot built in ${(built.wall * 1000).toFixed(0)} ms`);

  const demo = (argv: string[], out: string) => {
    const r = timedProcess(process.execPath, [...argv, 'demo', '--out', out, '--db', `${out}.sqlite`], {
      cwd: root,
      env,
    });
    if (r.status !== 0) throw new Error(`soclab demo failed (${r.status}): ${r.stderr}`);
    return { wall: r.wall * 1000, cpu: r.cpu * 1000, stdout: r.stdout };
  };
  const viaBin = (round: number) => demo([bin], join(dir, `bin-${round}`));
  const viaSnapshot = (round: number) => demo([...FLAGS, '--snapshot-blob', blob], join(dir, `snapshot-${round}`));

  // Warm-ups: the bin's code cache for `demo`, the file cache for both. The study must print the same numbers.
  const headline = (stdout: string) => stdout.split('\n').filter((l) => /^(baseline|protected|paired) *:/.test(l));
  const [a, b] = [viaBin(-1), viaSnapshot(-1)];
  if (JSON.stringify(headline(a.stdout)) !== JSON.stringify(headline(b.stdout)) || headline(a.stdout).length !== 3)
    throw new Error(`the snapshot's demo printed other numbers:\n${a.stdout}\n---\n${b.stdout}`);

  const runs: Record<'bin' | 'snapshot', { wall: number; cpu: number }[]> = { bin: [], snapshot: [] };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) runs.bin.push(viaBin(round));
    runs.snapshot.push(viaSnapshot(round));
    if (round % 2 === 1) runs.bin.push(viaBin(round));
  }
  const wall = (k: keyof typeof runs) => median(runs[k].map((r) => r.wall));
  const cpu = (k: keyof typeof runs) => median(runs[k].map((r) => r.cpu));
  console.log(`medians of ${ROUNDS} rounds, fresh \`soclab demo\`:`);
  console.log(`  the bin (bundle + code cache)   ${wall('bin').toFixed(0)} ms wall, ${cpu('bin').toFixed(0)} ms CPU`);
  console.log(
    `  from a startup snapshot         ${wall('snapshot').toFixed(0)} ms wall, ${cpu('snapshot').toFixed(0)} ms CPU`,
  );
  console.log(
    `snapshot / bin: wall ${(wall('snapshot') / wall('bin')).toFixed(2)}x, CPU ${(cpu('snapshot') / cpu('bin')).toFixed(2)}x`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
