#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts with tsx, one after another, and prints their output.
// Benchmarks print their own figures and targets; this script only sequences them (never part of npm test).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n### ${file}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`(${file} exited with ${r.status})`);
  }
}
console.log(`\n${files.length - failed}/${files.length} benchmarks ran`);
process.exit(failed === 0 ? 0 : 1);
