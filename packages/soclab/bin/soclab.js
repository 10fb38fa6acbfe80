#!/usr/bin/env node
// The bundled CLI (dist/bundle, scripts/build-bundles.mjs) loads a few files instead of ~1,100 modules. It is used
// only while it is newer than the tsc builds it came from; after a `tsc -b` alone the tsc output runs instead.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { LONG_LIVED_COMMANDS } from './long-lived-commands.js';

// Cedar's 4 MB WebAssembly module: V8 compiles each function with its baseline compiler (Liftoff) on first call and
// then recompiles the hot ones with TurboFan. A demo or campaign ends before that pays back (fresh `soclab demo`:
// 0.68x the CPU without it; a 10-repeat campaign: 0.93x), so those run Liftoff code only. The long-lived processes
// keep tiering up: their steady decision rate is ~1.6x higher with it. Set before anything compiles the module.
// And they validate each WebAssembly function when it is first compiled instead of all ~4 MB up front (V8 already
// compiles lazily; the eager validation was ~150M instructions of every process that loads Cedar, most of them for
// functions never called). Cedar's module is a pinned dependency; a function that failed validation would still
// fail, at its first call instead of at load.
const longLived = LONG_LIVED_COMMANDS.includes(process.argv[2] ?? '');
// And JavaScript functions are optimised by TurboFan after twice V8's default amount of execution (66 KB of
// bytecode budget -> 132 KB): in a process that lives a second or a few, the optimising compiles (on background
// threads) cost more than the optimised code returns. Fresh `soclab demo`: ~10% less CPU, wall unchanged or lower;
// a 165-run campaign: 5% less CPU, same wall. The code cache is keyed by V8's flags, so it is written with these set.
if (!longLived) {
  for (const flag of ['--liftoff-only', '--wasm-lazy-validation', '--interrupt-budget=135168'])
    setFlagsFromString(flag);
}

// Stack traces name the TypeScript sources, not bundle or tsc output offsets, where a stack can be printed: with
// SOCLAB_DEBUG, and in the servers' logs. Not otherwise: reading and parsing the source maps costs every short command.
if (longLived || process.env.SOCLAB_DEBUG) process.setSourceMapsEnabled(true);

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const built = ['../dist/.tsbuildinfo', '../../harness/dist/.tsbuildinfo', '../../models/dist/.tsbuildinfo'].map(mtime);
const bundle = mtime('../dist/bundle/cli.js');
if (bundle >= Math.max(...built)) {
  // Short commands run the CommonJS copy through V8's code cache (scripts/code-cache-loader.mjs; Node 20 caches no
  // ES module code). With SOCLAB_DEBUG and in the servers, the ES modules, whose stacks the source maps translate.
  if (!longLived && !process.env.SOCLAB_DEBUG && mtime('../dist/bundle/cli.cjs') >= bundle) {
    const { runWithCodeCache } = await import('../dist/bundle/code-cache.js');
    runWithCodeCache(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url)));
  } else await import('../dist/bundle/cli.js');
} else {
  await import('../dist/cli/main.js');
}
