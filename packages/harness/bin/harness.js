#!/usr/bin/env node
// The bundled CLI (dist/bundle, scripts/build-bundles.mjs) loads a few files instead of ~600 modules. It is used
// only while it is newer than the tsc builds it came from; after a `tsc -b` alone the tsc output runs instead.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

// With HARNESS_DEBUG (the only time the CLI prints a stack) stack traces name the TypeScript sources, not bundle or
// tsc output offsets. Not otherwise: reading and parsing the ~1 MB of source maps is ~8% of a 1-case run's CPU.
const debug = Boolean(process.env.HARNESS_DEBUG);
if (debug) process.setSourceMapsEnabled(true);

/**
 * The CommonJS copy of the bundle, compiled with V8's code cache (Node 20 caches no ES module code). The cache sits
 * beside the bundle (trusted like the code it caches, never a shared temp folder) and is V8's own data: V8 rejects
 * it when the source, V8 version or flags differ, and then it is rewritten. Any failure to read or write it only
 * costs the compile.
 */
function runWithCodeCache(file) {
  const source = readFileSync(file, 'utf8');
  const cacheFile = join(dirname(file), 'cache', `cli-${process.version}-${process.arch}.v8`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit the functions this run compiled are in the cache too.
    process.once('exit', () => {
      try {
        mkdirSync(dirname(cacheFile), { recursive: true });
        const temporary = `${cacheFile}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {}
    });
  }
  globalThis[Symbol.for('aeh.import')] = (specifier) => import(specifier);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const bundle = mtime('../dist/bundle/cli.js');
if (bundle >= Math.max(mtime('../dist/.tsbuildinfo'), mtime('../../models/dist/.tsbuildinfo'))) {
  // Both bundles come from one build; HARNESS_DEBUG takes the ES modules, whose stacks the source maps translate.
  if (!debug && mtime('../dist/bundle/cli.cjs') >= bundle) {
    runWithCodeCache(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url)));
  } else await import('../dist/bundle/cli.js');
} else {
  await import('../dist/cli/main.js');
}
