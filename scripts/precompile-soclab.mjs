#!/usr/bin/env node
// Precompiles soclab's built-in assets (issue 22): the bundled policy folder and scenario corpus are loaded with the
// real loaders, full validation included, and the results written as JSON artifacts under
// packages/soclab/dist/precompiled/, keyed by the digest of every input file (src/precompile/build.ts). A fresh
// soclab process then reads them instead of parsing YAML and validating Cedar again. Runs after `tsc -b` (it
// imports the tsc output): npm run build / pretest. Artifacts of earlier inputs are removed.
import { precompileBuiltInAssets } from '../packages/soclab/dist/precompile/build.js';

const started = performance.now();
const { written, removed } = precompileBuiltInAssets();
console.log(
  `precompiled soclab's built-in assets (${written.length} artifacts${removed.length > 0 ? `, ${removed.length} older removed` : ''}) in ${(performance.now() - started).toFixed(0)} ms`,
);
