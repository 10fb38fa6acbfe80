import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// What the architecture tests read from a source tree: every .ts/.tsx file's text, and the module specifiers each
// file names, so each test only states its own rule.

/** Every .ts and .tsx file below `dir` (recursively), by absolute path, with its text. */
export function sourceFiles(dir: string, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, into);
    else if (/\.tsx?$/.test(entry.name)) into.set(path, readFileSync(path, 'utf8'));
  }
  return into;
}

/** A module specifier a file names, with its 1-based line. */
export interface ImportSpecifier {
  specifier: string;
  line: number;
}

/** Every static import, re-export and dynamic `import('...')` in a file's text. */
export function importSpecifiers(text: string): ImportSpecifier[] {
  const out: ImportSpecifier[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(pattern)) {
    out.push({ specifier: m[1] as string, line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}
