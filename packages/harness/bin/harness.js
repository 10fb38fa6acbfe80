#!/usr/bin/env node
// The bundled CLI (dist/bundle, scripts/build-bundles.mjs) loads a few files instead of ~600 modules. It is used
// only while it is newer than the tsc builds it came from; after a `tsc -b` alone the tsc output runs instead.
import { statSync } from 'node:fs';

// With HARNESS_DEBUG (the only time the CLI prints a stack) stack traces name the TypeScript sources, not bundle or
// tsc output offsets. Not otherwise: reading and parsing the ~1 MB of source maps is ~8% of a 1-case run's CPU.
if (process.env.HARNESS_DEBUG) process.setSourceMapsEnabled(true);

const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const bundle = mtime('../dist/bundle/cli.js');
if (bundle >= Math.max(mtime('../dist/.tsbuildinfo'), mtime('../../models/dist/.tsbuildinfo'))) {
  await import('../dist/bundle/cli.js');
} else {
  await import('../dist/cli/main.js');
}
