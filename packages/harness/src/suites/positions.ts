import {
  Composer,
  Document,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  Parser,
  YAMLParseError,
} from 'yaml';
import { errorMessage } from '../core/errors.js';
import { documentLimitProblem, SOURCE_LIMITS, type SourceProblem, strictJsonProblem } from './source-limits.js';

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

/** Thrown from the token stream when flow collections nest past the limit, before the parser recurses into them. */
class TooDeep extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

/**
 * parseDocument, with the lexer's tokens checked on their way to the parser: `[`/`{` nested past the depth limit
 * stop the parse (the parser and composer recurse per level, and a few hundred kilobytes of brackets can exhaust
 * the process).
 */
function parseGuarded(
  text: string,
  lines: LineCounter,
): { doc: Document; problem: SourceProblem | null; hasAliases: boolean } {
  const parser = new Parser(lines.addNewLine);
  // No tag is resolved (YAML 1.1's !!binary, !!timestamp, !!set included): an unresolved tag is a warning, which
  // syntaxIssues reports. They used to turn a case input into a Buffer, a Date or a Set, or (`!custom hi`) be dropped.
  const composer = new Composer({ prettyErrors: false, uniqueKeys: true, resolveKnownTags: false });
  let hasAliases = false;
  function* tokens() {
    lines.addNewLine(0); // as Parser.parse does: line 1 starts at offset 0
    let depth = 0;
    for (const lexeme of new Lexer().lex(text)) {
      if (lexeme === '[' || lexeme === '{') {
        if (++depth > SOURCE_LIMITS.maxDepth) throw new TooDeep(parser.offset);
      } else if (lexeme === ']' || lexeme === '}') depth--;
      else if (lexeme[0] === '*') hasAliases = true;
      yield* parser.next(lexeme);
    }
    yield* parser.end();
  }
  let doc: Document | null = null;
  try {
    for (const d of composer.compose(tokens(), true, text.length)) {
      if (!doc) doc = d;
      else {
        doc.errors.push(
          new YAMLParseError([d.range[0], d.range[1]], 'MULTIPLE_DOCS', 'a file holds one document (found a second)'),
        );
        break;
      }
    }
  } catch (err) {
    if (!(err instanceof TooDeep)) throw err;
    const message = `nesting deeper than ${SOURCE_LIMITS.maxDepth} levels (the limit for suite files)`;
    return { doc: new Document(null), problem: { offset: err.offset, message }, hasAliases };
  }
  return { doc: doc ?? new Document(null), problem: null, hasAliases };
}

/** A parsed YAML/JSON source with position lookup for any field path. */
export class PositionedDocument {
  readonly doc: Document;
  readonly lines = new LineCounter();
  /** Why the document cannot be used at all (strict JSON, depth, alias limits); reported by syntaxIssues. */
  readonly fatal: SourceProblem | null;
  #js: unknown = null;

  constructor(
    readonly file: string,
    readonly text: string,
    /** Added to every line (for documents embedded in a larger file, e.g. one JSONL line). */
    readonly lineOffset = 0,
    /** `json: true` for `.json` files: strict JSON (YAML would accept trailing commas and comments). */
    options: { json?: boolean } = {},
  ) {
    const strict = options.json ? strictJsonProblem(text) : null;
    if (strict) {
      this.doc = new Document(null);
      this.fatal = { ...strict, message: `invalid JSON: ${strict.message}` };
      this.#countLines();
      return;
    }
    const { doc, problem, hasAliases } = parseGuarded(text, this.lines);
    this.doc = doc;
    // Limits are checked even when there are syntax errors: the partial document is converted too.
    let fatal = problem ?? documentLimitProblem(doc, hasAliases);
    if (!fatal) {
      try {
        this.#js = doc.toJS({ maxAliasCount: -1 });
      } catch (err) {
        // What the parser let through but cannot be converted (an unresolvable merge key, say) is still an issue.
        fatal = { offset: 0, message: `cannot read the document: ${errorMessage(err)}` };
      }
    }
    this.fatal = fatal;
  }

  /** Line starts for position lookup when the parser did not run (it feeds the counter itself). */
  #countLines(): void {
    this.lines.addNewLine(0);
    for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) this.lines.addNewLine(i + 1);
  }

  /** Syntax errors (each once per position), and the limit or strict-JSON problem that stops the document. */
  syntaxIssues(): SuiteIssue[] {
    const seen = new Set<string>();
    const out: SuiteIssue[] = [];
    if (this.fatal) {
      const { line, col } = this.lines.linePos(this.fatal.offset);
      out.push({
        file: this.file,
        line: (line || 1) + this.lineOffset,
        col: col || 1,
        path: '',
        message: this.fatal.message,
      });
      return out;
    }
    const tags = this.doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
    for (const e of [...this.doc.errors, ...tags]) {
      let { line, col } = this.lines.linePos(e.pos[0]);
      let message = `syntax error: ${e.code === 'TAG_RESOLVE_FAILED' ? unsupportedTag(this.text, e.pos[0]) : describeYamlError(e.code, e.message)}`;
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
    for (const [k, lineText] of all.slice(after).entries()) {
      const [, indent] = /^(\s*)\S/.exec(lineText) ?? [];
      if (indent !== undefined && !lineText.trimStart().startsWith('#')) {
        return { line: after + k + 1, col: indent.length + 1 };
      }
    }
    return null;
  }

  /** The document as plain data (converted once, aliases bounded by documentLimitProblem); null when fatal. */
  toJS(): unknown {
    return this.#js;
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
  const [firstLine = ''] = message.split('\n');
  const first = firstLine.replace(/ at line \d+, column \d+.*$/, '');
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

/** The message for a YAML tag (`!!binary`, `!custom`) as written at `offset`: suite files hold plain data only. */
function unsupportedTag(text: string, offset: number): string {
  const [tag] = /^!\S*/.exec(text.slice(offset)) ?? ['tag'];
  return `unsupported YAML tag ${tag}: suite and case files hold plain data (strings, numbers, booleans, null, lists, mappings)`;
}
