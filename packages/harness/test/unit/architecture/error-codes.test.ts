import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../helpers/source-files.js';

// Every exported error class of the harness carries a stable `code` (AEH_ERR_*), no two share one, and each is
// documented in docs/errors.md with its class: a new class without a code, or without its row, fails here.

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC = resolve(HERE, '../../../src');
const DOCS = resolve(HERE, '../../../../../docs/errors.md');

interface ErrorClass {
  name: string;
  file: string;
  code: string | null;
}

/** Exported classes extending Error (or another *Error class), with the `code` their body declares. */
function errorClasses(files: ReadonlyMap<string, string>): ErrorClass[] {
  const out: ErrorClass[] = [];
  for (const [file, text] of files) {
    for (const m of text.matchAll(/^export (?:abstract )?class (\w+) extends (\w*Error)\b[^{]*\{\n([\s\S]*?)^\}/gm)) {
      const code = /^\s+(?:override )?readonly code(?:: string)? = '([A-Z0-9_]+)'/m.exec(m[3] as string);
      out.push({ name: m[1] as string, file, code: code ? (code[1] as string) : null });
    }
  }
  return out;
}

/** Rows of the docs table: code -> class (`(none)` for a code no class carries). */
function documentedCodes(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of markdown.matchAll(/^\| `(AEH_ERR_[A-Z0-9_]+)` \| `?([\w()]+)`? \|/gm))
    rows.set(m[1] as string, m[2] as string);
  return rows;
}

/** What is wrong with the classes against the docs: missing, malformed, duplicate or undocumented codes. */
function problems(classes: ErrorClass[], docs: Map<string, string>): string[] {
  const found: string[] = [];
  const seen = new Map<string, string>();
  for (const c of classes) {
    const where = `${c.name} (${relative(SRC, c.file)})`;
    if (c.code === null) {
      found.push(`${where} has no readonly code = 'AEH_ERR_...'`);
      continue;
    }
    if (!c.code.startsWith('AEH_ERR_')) found.push(`${where}: code ${c.code} does not start with AEH_ERR_`);
    const other = seen.get(c.code);
    if (other) found.push(`${where}: code ${c.code} is also ${other}'s`);
    seen.set(c.code, c.name);
    if (docs.get(c.code) !== c.name)
      found.push(`${where}: ${c.code} is not documented for ${c.name} in docs/errors.md`);
  }
  for (const [code, name] of docs) {
    if (name !== '(none)' && !seen.has(code))
      found.push(`docs/errors.md lists ${code} (${name}), which no class carries`);
  }
  return found;
}

describe('harness error codes', () => {
  it('reports a class without a code, a shared code, and a code missing from the docs', () => {
    const fake = new Map([
      [join(SRC, 'a.ts'), "export class NoCodeError extends Error {\n  override name = 'NoCodeError';\n}\n"],
      [join(SRC, 'b.ts'), "export class FirstError extends Error {\n  readonly code = 'AEH_ERR_SAME';\n}\n"],
      [join(SRC, 'c.ts'), "export class SecondError extends Error {\n  readonly code = 'AEH_ERR_SAME';\n}\n"],
      [join(SRC, 'd.ts'), 'class InternalSignal extends Error {}\n'],
    ]);
    const docs = documentedCodes('| `AEH_ERR_SAME` | `FirstError` | x |\n| `AEH_ERR_GONE` | `GoneError` | y |\n');
    expect(problems(errorClasses(fake), docs)).toEqual([
      "NoCodeError (a.ts) has no readonly code = 'AEH_ERR_...'",
      "SecondError (c.ts): code AEH_ERR_SAME is also FirstError's",
      'SecondError (c.ts): AEH_ERR_SAME is not documented for SecondError in docs/errors.md',
      'docs/errors.md lists AEH_ERR_GONE (GoneError), which no class carries',
    ]);
  });

  it('every exported error class in packages/harness/src has a unique code documented in docs/errors.md', () => {
    const classes = errorClasses(sourceFiles(SRC));
    // The scan found the classes (an empty list would pass vacuously).
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['SuiteValidationError', 'CliError']));
    expect(problems(classes, documentedCodes(readFileSync(DOCS, 'utf8')))).toEqual([]);
  });
});
