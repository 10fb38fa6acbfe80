#!/usr/bin/env node
// The bundled CLI (dist/bundle, scripts/build-bundles.mjs) loads a few files instead of ~600 modules. It is used
// only while it is newer than the tsc builds it came from; after a `tsc -b` alone the tsc output runs instead.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// With HARNESS_DEBUG (the only time the CLI prints a stack) stack traces name the TypeScript sources, not bundle or
// tsc output offsets. Not otherwise: reading and parsing the ~1 MB of source maps is ~8% of a 1-case run's CPU.
const debug = Boolean(process.env.HARNESS_DEBUG);
if (debug) process.setSourceMapsEnabled(true);

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const bundle = mtime('../dist/bundle/cli.js');
if (bundle >= Math.max(mtime('../dist/.tsbuildinfo'), mtime('../../models/dist/.tsbuildinfo'))) {
  // Both bundles come from one build; HARNESS_DEBUG takes the ES modules, whose stacks the source maps translate.
  // Without it, the CommonJS copy through V8's code cache (scripts/code-cache-loader.mjs): Node 20 caches no ES module
  // code, and compiling the bundle is most of a 1-case run's fixed cost.
  if (!debug && mtime('../dist/bundle/cli.cjs') >= bundle) {
    const { runWithCodeCache } = await import('../dist/bundle/code-cache.js');
    runWithCodeCache(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url)));
  } else await import('../dist/bundle/cli.js');
} else {
  await import('../dist/cli/main.js');
}
