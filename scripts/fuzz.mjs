#!/usr/bin/env node
/**
 * `npm run fuzz`: every property test (`packages/<pkg>/test/**\/*.fuzz.test.ts`) with many more runs than the
 * test suite's fixed-seed slice, and a fresh seed each time (printed, so a failure can be replayed).
 *
 *   npm run fuzz                          # FUZZ_RUNS=2000 per property, random seed
 *   npm run fuzz -- --runs 20000 --seed 42
 *   npm run fuzz -- soclab                # only files whose path contains "soclab"
 *
 * Adding a target needs no edit here: name the file `*.fuzz.test.ts` and read FUZZ_RUNS / FUZZ_SEED (see
 * packages/soclab/test/helpers/fuzz.ts).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const runs = option('--runs') ?? process.env.FUZZ_RUNS ?? '2000';
const seed = option('--seed') ?? process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^\d+$/.test(runs) || !/^-?\d+$/.test(seed)) {
  process.stderr.write('usage: npm run fuzz -- [--runs N] [--seed N] [path filter...]\n');
  process.exit(2);
}

function find(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (/\.fuzz\.test\.tsx?$/.test(name)) out.push(relative(root, path));
  }
  return out;
}
const files = readdirSync(join(root, 'packages'))
  .flatMap((pkg) => {
    try {
      return find(join(root, 'packages', pkg, 'test'), []);
    } catch {
      return [];
    }
  })
  .filter((file) => args.every((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  process.stderr.write('no *.fuzz.test.ts files matched\n');
  process.exit(2);
}
process.stdout.write(`fuzz: ${files.length} file(s), FUZZ_RUNS=${runs} FUZZ_SEED=${seed}\n`);
for (const file of files) process.stdout.write(`  ${file}\n`);
const result = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed },
});
if (result.status !== 0)
  process.stdout.write(`fuzz failed; replay with: npm run fuzz -- --runs ${runs} --seed ${seed}\n`);
process.exit(result.status ?? 3);
