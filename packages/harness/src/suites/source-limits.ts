import { readFileSync, statSync } from 'node:fs';
import { type Alias, type Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, type Node } from 'yaml';
import { itemAt } from '../core/item-at.js';
import { invalidUtf8Offset } from '../core/utf8.js';
import type { SuiteIssue } from './positions.js';

/**
 * Strict reading of suite and case files, before and around the YAML parser: hostile or broken input gets a
 * validation error naming file:line:col (exit 2), never a crash, a hang or a silently different suite.
 *
 * Limits (docs/suite-format.md, "Limits"):
 * - size: a suite file or a YAML/JSON case file holds at most 16 MiB; so does one JSONL line or CSV record;
 * - depth: mappings and lists nest at most 64 levels (aliases expanded);
 * - aliases: at most 1 000 aliases (`*name`) per file, expanding to at most 100 000 nodes in all (an "alias bomb"
 *   of a few lines would otherwise expand to billions);
 * - text: strict UTF-8 (a BOM is allowed); `.json` files are strict JSON (no trailing commas, comments or
 *   single quotes), not YAML that happens to look like JSON.
 */
export const SOURCE_LIMITS = {
  maxBytes: 16 * 1024 * 1024,
  maxDepth: 64,
  maxAliases: 1000,
  maxAliasExpansion: 100_000,
} as const;

/** A problem at a character offset of a text. */
export interface SourceProblem {
  offset: number;
  message: string;
}

/** Line and column (1-based; columns count characters) of an offset in a text. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/**
 * Decode bytes as strict UTF-8 (a leading BOM dropped). On invalid input, the problem names the line and column
 * of the first bad byte (column in characters of the valid text before it) and the byte's value.
 */
export function decodeStrict(bytes: Uint8Array): { text: string } | { line: number; col: number; message: string } {
  const bad = invalidUtf8Offset(bytes);
  if (bad >= 0) {
    const before = Buffer.from(bytes.subarray(0, bad)).toString('utf8');
    const { line, col } = lineCol(before, before.length);
    const hex = itemAt(bytes, bad).toString(16).toUpperCase().padStart(2, '0');
    return { line, col, message: `invalid UTF-8: byte 0x${hex} at byte offset ${bad} is not valid UTF-8 text` };
  }
  let text = Buffer.from(bytes).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text };
}

/**
 * Read a suite or YAML/JSON case file whole: its bytes and strict UTF-8 text, or the issue that stops it (over the
 * size limit, checked before reading; invalid UTF-8, located).
 */
export function readSourceText(file: string, display: string): { bytes: Buffer; text: string } | { issue: SuiteIssue } {
  const size = statSync(file).size;
  if (size > SOURCE_LIMITS.maxBytes) {
    const message = `file is ${formatBytes(size)}, over the ${formatBytes(SOURCE_LIMITS.maxBytes)} limit for suite and YAML/JSON case files (use JSONL or CSV for large case sets)`;
    return { issue: { file: display, line: 0, col: 0, path: '', message } };
  }
  const bytes = readFileSync(file);
  const decoded = decodeStrict(bytes);
  if ('message' in decoded) return { issue: { file: display, path: '', ...decoded } };
  return { bytes, text: decoded.text };
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${n} bytes`;
}

// ---------------------------------------------------------------------------------------------------------
// Strict JSON: the first error with its offset (JSON.parse often gives no position, and YAML accepts more).

class JsonScan {
  #i = 0;
  constructor(readonly text: string) {}

  check(): SourceProblem | null {
    try {
      this.#ws();
      this.#value(1);
      this.#ws();
      if (this.#i < this.text.length) this.#fail(`unexpected ${this.#what()} after the JSON value`);
      return null;
    } catch (err) {
      if (err instanceof JsonProblem) return { offset: err.offset, message: err.message };
      throw err;
    }
  }

  #what(): string {
    const ch = this.text[this.#i];
    return ch === undefined ? 'end of file' : `'${ch}'`;
  }

  #fail(message: string, at = this.#i): never {
    throw new JsonProblem(message, at);
  }

  #ws(): void {
    const t = this.text;
    while (this.#i < t.length) {
      const c = t[this.#i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.#i++;
      else if (c === '/' || c === '#') this.#fail('comments are not allowed in JSON');
      else break;
    }
  }

  #value(depth: number): void {
    const c = this.text.charAt(this.#i);
    if (c === '{' || c === '[') {
      if (depth > SOURCE_LIMITS.maxDepth) {
        this.#fail(`nesting deeper than ${SOURCE_LIMITS.maxDepth} levels (the limit for suite files)`);
      }
      if (c === '{') this.#object(depth);
      else this.#array(depth);
    } else if (c === '"') this.#string();
    else if (c === '-' || (c >= '0' && c <= '9')) this.#number();
    else if (this.text.startsWith('true', this.#i)) this.#i += 4;
    else if (this.text.startsWith('false', this.#i)) this.#i += 5;
    else if (this.text.startsWith('null', this.#i)) this.#i += 4;
    else if (c === "'") this.#fail('strings must use double quotes in JSON');
    else this.#fail(`expected a JSON value, found ${this.#what()}`);
  }

  #object(depth: number): void {
    this.#i++;
    this.#ws();
    if (this.text[this.#i] === '}') {
      this.#i++;
      return;
    }
    for (;;) {
      this.#ws();
      if (this.text[this.#i] !== '"') {
        if (this.text[this.#i] === '}') this.#fail("trailing comma before '}'", this.#lastComma());
        this.#fail(`expected a double-quoted key, found ${this.#what()}`);
      }
      this.#string();
      this.#ws();
      if (this.text[this.#i] !== ':') this.#fail(`expected ':' after the key, found ${this.#what()}`);
      this.#i++;
      this.#ws();
      this.#value(depth + 1);
      if (this.#closedAfterItem('}', 'an object')) return;
    }
  }

  #array(depth: number): void {
    this.#i++;
    this.#ws();
    if (this.text[this.#i] === ']') {
      this.#i++;
      return;
    }
    for (;;) {
      this.#ws();
      if (this.text[this.#i] === ']') this.#fail("trailing comma before ']'", this.#lastComma());
      this.#value(depth + 1);
      if (this.#closedAfterItem(']', 'a list')) return;
    }
  }

  /** After an object member or list item: a comma (false: another follows) or the closer (true); else fail. */
  #closedAfterItem(closer: '}' | ']', container: string): boolean {
    this.#ws();
    const c = this.text[this.#i];
    if (c !== ',' && c !== closer) this.#fail(`expected ',' or '${closer}' in ${container}, found ${this.#what()}`);
    this.#i++;
    return c === closer;
  }

  #lastComma(): number {
    return this.text.lastIndexOf(',', this.#i);
  }

  #string(): void {
    const t = this.text;
    const start = this.#i;
    this.#i++;
    while (this.#i < t.length) {
      const c = t.charCodeAt(this.#i);
      if (c === 0x22) {
        this.#i++;
        return;
      }
      if (c === 0x5c) {
        const e = t[this.#i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.#i + 2, this.#i + 6))) this.#fail('bad \\u escape in a string');
          this.#i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.#i += 2;
        else this.#fail(`bad escape '\\${e ?? ''}' in a string`);
        continue;
      }
      if (c < 0x20) this.#fail('control character in a string (escape it, e.g. \\n)');
      this.#i++;
    }
    this.#fail('unterminated string', start);
  }

  #number(): void {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.#i, this.#i + 400));
    if (!m || m[0] === '-' || m[0] === '') this.#fail('bad number');
    this.#i += m[0].length;
  }
}

class JsonProblem extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** The first strict-JSON problem in `text` (with its offset), or null when it is valid JSON within the limits. */
export function strictJsonProblem(text: string): SourceProblem | null {
  return new JsonScan(text).check();
}

/** True when a parsed JSON value nests lists and objects deeper than `max` (iterative: no stack to overflow). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Aliases and depth of a parsed YAML document, aliases expanded: more than `maxAliases` aliases, an expansion
 * over `maxAliasExpansion` nodes, an alias inside the node it names, or nesting over `maxDepth` levels.
 * The walk stops at the first problem, so its own cost is bounded by the limits.
 */
export function documentLimitProblem(doc: Document, hasAliases = true): SourceProblem | null {
  let aliases = 0;
  let expanded = 0;
  const open = new Set<Node>();
  // Each alias's target, found in one document-order pass (the latest anchor of that name before the alias, as
  // yaml resolves it); Alias.resolve would scan the whole document once per alias, and yaml's visit() copies the
  // path at every node. Nodes past the depth limit are left to the walk below, which reports them.
  const targets = new Map<Alias, Node | undefined>();
  const anchors = new Map<string, Node>();
  const collect = (node: unknown, depth: number): void => {
    if (isAlias(node)) {
      targets.set(node, anchors.get(node.source));
      return;
    }
    if (!isNode(node) || depth > SOURCE_LIMITS.maxDepth + 1) return;
    if (node.anchor) anchors.set(node.anchor, node);
    if (!isMap(node) && !isSeq(node)) return;
    for (const item of node.items as unknown[]) {
      if (isPair(item)) {
        collect(item.key, depth + 1);
        collect(item.value, depth + 1);
      } else collect(item, depth + 1);
    }
  };
  if (hasAliases) collect(doc.contents, 1);
  const walk = (node: unknown, depth: number, via: Node | null): SourceProblem | null => {
    if (isAlias(node)) {
      if (via === null) {
        aliases++;
        if (aliases > SOURCE_LIMITS.maxAliases) {
          return { offset: node.range?.[0] ?? 0, message: `more than ${SOURCE_LIMITS.maxAliases} aliases in one file` };
        }
      }
      const target = targets.get(node);
      if (!target) {
        return {
          offset: node.range?.[0] ?? 0,
          message: `alias *${node.source} has no anchor &${node.source} before it`,
        };
      }
      if (open.has(target)) {
        return { offset: node.range?.[0] ?? 0, message: `alias *${node.source} is inside the node it refers to` };
      }
      return walk(target, depth, via ?? node);
    }
    if (via !== null) {
      expanded++;
      if (expanded > SOURCE_LIMITS.maxAliasExpansion) {
        return {
          offset: via.range?.[0] ?? 0,
          message: `aliases expand to more than ${SOURCE_LIMITS.maxAliasExpansion} nodes (an alias bomb?)`,
        };
      }
    }
    if (!isMap(node) && !isSeq(node)) return null;
    if (depth > SOURCE_LIMITS.maxDepth) {
      const at = (via ?? node).range?.[0] ?? 0;
      return {
        offset: at,
        message: `nesting deeper than ${SOURCE_LIMITS.maxDepth} levels (the limit for suite files)`,
      };
    }
    open.add(node);
    try {
      for (const item of node.items as unknown[]) {
        for (const child of isPair(item) ? [item.key, item.value] : [item]) {
          if (isScalar(child) || child === null || child === undefined) {
            if (via !== null && ++expanded > SOURCE_LIMITS.maxAliasExpansion) {
              return {
                offset: via.range?.[0] ?? 0,
                message: `aliases expand to more than ${SOURCE_LIMITS.maxAliasExpansion} nodes (an alias bomb?)`,
              };
            }
            continue;
          }
          const problem = walk(child, depth + 1, via);
          if (problem) return problem;
        }
      }
    } finally {
      open.delete(node);
    }
    return null;
  };
  return walk(doc.contents, 1, null);
}
