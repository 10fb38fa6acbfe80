import { type Document, isMap, isNode, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/** One problem in a suite or case file, located as precisely as the source allows. */
export interface SuiteIssue {
  file: string;
  line: number;
  col: number;
  /** Field path, e.g. `tests.2.evaluators.0.options.substring`. */
  path: string;
  message: string;
}

/** `file:line:col: path: message` (the form every validation error is printed in). */
export function formatIssue(issue: SuiteIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  return `${where}: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

export type PathKey = string | number;

export function pathString(path: readonly PathKey[]): string {
  return path.map(String).join('.');
}

/** A parsed YAML/JSON source with position lookup for any field path. */
export class PositionedDocument {
  readonly doc: Document;
  readonly lines = new LineCounter();

  constructor(
    readonly file: string,
    readonly text: string,
    /** Added to every line (for documents embedded in a larger file, e.g. one JSONL line). */
    readonly lineOffset = 0,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
  }

  /** Syntax errors (each once per position). */
  syntaxIssues(): SuiteIssue[] {
    const seen = new Set<string>();
    const out: SuiteIssue[] = [];
    for (const e of [...this.doc.errors]) {
      let { line, col } = this.lines.linePos(e.pos[0]);
      let message = `syntax error: ${describeYamlError(e.code, e.message)}`;
      if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY') {
        // The parser notices at the end of the previous value; the culprit is the next, over-indented line.
        const next = this.#nextContentLine(line);
        if (next) {
          message = `syntax error: bad indentation (this line is indented deeper than the key on line ${line + this.lineOffset})`;
          ({ line, col } = next);
        }
      }
      const key = `${line}:${col}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ file: this.file, line: line + this.lineOffset, col, path: '', message });
    }
    return out;
  }

  #nextContentLine(after: number): { line: number; col: number } | null {
    const all = this.text.split('\n');
    for (let i = after; i < all.length; i++) {
      const m = /^(\s*)\S/.exec(all[i]);
      if (m && !all[i].trimStart().startsWith('#')) return { line: i + 1, col: m[1].length + 1 };
    }
    return null;
  }

  toJS(): unknown {
    return this.doc.toJS({ maxAliasCount: 100 });
  }

  /**
   * Line and column of the value at `path`; for a missing field, of its nearest existing parent. With
   * `key: true`, of the key itself (for unknown-field errors).
   */
  position(path: readonly PathKey[], opts: { key?: boolean } = {}): { line: number; col: number } {
    let node: unknown = this.doc.contents;
    let best: Node | null = isNode(node) ? node : null;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && keyOf(p.key) === String(seg));
        if (!pair) break;
        if (last && opts.key && isNode(pair.key)) {
          best = pair.key;
          break;
        }
        node = pair.value;
        if (isNode(node)) best = node;
        else if (isNode(pair.key)) best = pair.key;
      } else if (isSeq(node) && typeof seg === 'number') {
        node = node.items[seg];
        if (!isNode(node)) break;
        best = node;
      } else break;
    }
    const offset = best?.range?.[0] ?? 0;
    const { line, col } = this.lines.linePos(offset);
    return { line: (line || 1) + this.lineOffset, col: col || 1 };
  }

  issue(path: readonly PathKey[], message: string, opts: { key?: boolean } = {}): SuiteIssue {
    const { line, col } = this.position(path, opts);
    return { file: this.file, line, col, path: pathString(path), message };
  }
}

function keyOf(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

function describeYamlError(code: string, message: string): string {
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+.*$/, '');
  switch (code) {
    case 'BAD_INDENT':
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
    case 'MISSING_CHAR':
      return `bad indentation or structure (${first})`;
    case 'DUPLICATE_KEY':
      return `duplicate key (${first})`;
    default:
      return first;
  }
}
