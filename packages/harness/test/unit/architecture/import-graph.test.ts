import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportSpecifier, importSpecifiers, sourceFiles } from '../../helpers/source-files.js';

// The folder map of packages/harness/src points one way: core/ holds the contracts and depends on nothing, and
// the folders that build on it never reach back "upwards". A move that brings an upward edge back fails here.

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

/** Edges that point upwards: `from` must never import from `to`. */
const FORBIDDEN: readonly (readonly [from: string, to: string])[] = [
  ['runner', 'reporters'],
  ['store', 'cli'],
  ['runner', 'suites'],
  ['suites', 'runner'],
  ['adapters', 'runner'],
];

/** Static imports, re-exports and dynamic `import('...')` with a relative specifier. */
function relativeImports(text: string): ImportSpecifier[] {
  return importSpecifiers(text).filter(({ specifier }) => /^\.{1,2}\//.test(specifier));
}

/** The top-level folder of src a path is in ('' for a file directly in src, or outside src). */
function topFolder(absolute: string): string {
  const rel = relative(SRC, absolute);
  if (rel.startsWith('..')) return '<outside src>';
  const parts = rel.split(/[\\/]/);
  return parts.length > 1 ? (parts[0] as string) : '';
}

/** Every violation in a set of files: core reaching outside itself, or a forbidden upward edge. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const from = topFolder(file);
    for (const edge of relativeImports(text)) {
      const to = topFolder(resolve(dirname(file), edge.specifier));
      if (to === from) continue;
      const where = `${relative(SRC, file)}:${edge.line} imports '${edge.specifier}'`;
      if (from === 'core') found.push(`${where}: core/ depends on nothing outside itself`);
      else if (FORBIDDEN.some(([f, t]) => f === from && t === to))
        found.push(`${where}: ${from}/ must not import ${to}/`);
    }
  }
  return found;
}

describe('harness import graph', () => {
  it('reports a core file that imports outside core, and each forbidden upward edge', () => {
    const fake = new Map([
      [join(SRC, 'core/x.ts'), "import type { Agent } from '../adapters/base.js';\n"],
      [join(SRC, 'core/y.ts'), "import { z } from 'zod';\nimport { a } from './a.js';\n"],
      [join(SRC, 'runner/r.ts'), "const m = await import('../reporters/base.js');\n"],
      [join(SRC, 'store/s.ts'), "export { CliError } from '../cli/common.js';\n"],
      [join(SRC, 'adapters/a.ts'), "import {\n  sleep,\n} from '../runner/retry.js';\n"],
      [join(SRC, 'suites/b.ts'), "import type { SuiteLike } from '../runner/runner.js';\n"],
      [join(SRC, 'reporters/ok.ts'), "import { writeExperimentFile } from '../runner/run-folder.js';\n"],
    ]);
    expect(violations(fake)).toEqual([
      "core/x.ts:1 imports '../adapters/base.js': core/ depends on nothing outside itself",
      "runner/r.ts:1 imports '../reporters/base.js': runner/ must not import reporters/",
      "store/s.ts:1 imports '../cli/common.js': store/ must not import cli/",
      "adapters/a.ts:3 imports '../runner/retry.js': adapters/ must not import runner/",
      "suites/b.ts:1 imports '../runner/runner.js': suites/ must not import runner/",
    ]);
  });

  it('has no such edge in packages/harness/src', () => {
    const files = sourceFiles(SRC);
    // The walk found the source tree (an empty map would pass vacuously).
    expect(files.size).toBeGreaterThan(100);
    expect([...files.keys()].some((f) => topFolder(f) === 'core')).toBe(true);
    expect(violations(files)).toEqual([]);
  });
});
