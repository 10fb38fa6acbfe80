import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { errorMessage } from '../core/errors.js';
import { CsvParser, type CsvRecord } from './csv.js';
import { type PathKey, PositionedDocument, pathString, type SuiteIssue } from './positions.js';
import {
  decodeStrict,
  formatBytes,
  nestsDeeperThan,
  readSourceText,
  SOURCE_LIMITS,
  strictJsonProblem,
} from './source-limits.js';

/** A case as read from a source, before validation, with a way to locate any of its fields. */
export interface RawCase {
  value: unknown;
  /** Cheap `file:line` of the case (streamed sources), used to name the first of two duplicate ids. */
  origin?: string;
  locate(path: readonly PathKey[], message: string, opts?: { key?: boolean }): SuiteIssue;
}

/** Stream the raw cases of an external case file (JSONL and CSV are streamed; YAML and JSON read whole). */
export async function* readCaseFile(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  const lower = file.toLowerCase();
  if (lower.endsWith('.jsonl')) yield* readJsonl(file, display, hash);
  else if (lower.endsWith('.csv')) yield* readCsv(file, display, hash);
  else yield* readDocument(file, display, hash);
}

export function isIssue(x: RawCase | SuiteIssue): x is SuiteIssue {
  return 'message' in x && 'line' in x;
}

type Line = { text: string; line: number; newline: boolean } | SuiteIssue;

/**
 * Split a byte stream into strict UTF-8 lines with 1-based line numbers (a trailing partial line is yielded too).
 * Lines are cut on the newline byte, which never occurs inside a multi-byte character, so each line is checked
 * and decoded on its own; an invalid line or one over the size limit is an issue, and reading stops there.
 */
async function* lines(file: string, display: string, hash?: Hash): AsyncGenerator<Line> {
  let carry: Buffer = Buffer.alloc(0);
  let line = 0;
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  const decode = (bytes: Buffer, newline: boolean): Line => {
    line++;
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    const decoded = decodeStrict(bytes);
    if ('message' in decoded) return { file: display, path: '', ...decoded, line: line + decoded.line - 1 };
    return { text: decoded.text.replace(/\r$/, ''), line, newline };
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash?.update(chunk);
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (;;) {
        const nl = bytes.indexOf(0x0a, start);
        if (nl < 0) break;
        const out = decode(bytes.subarray(start, nl), true);
        yield out;
        if ('message' in out) return;
        start = nl + 1;
      }
      carry = Buffer.from(bytes.subarray(start));
      if (carry.length > SOURCE_LIMITS.maxBytes) {
        yield {
          file: display,
          line: line + 1,
          col: 1,
          path: '',
          message: `line is longer than ${formatBytes(SOURCE_LIMITS.maxBytes)}, the limit for one JSONL line or CSV record`,
        };
        return;
      }
    }
    if (carry.length > 0) yield decode(carry, false);
  } finally {
    stream.destroy();
  }
}

async function* readJsonl(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  for await (const read of lines(file, display, hash)) {
    if ('message' in read) {
      yield read;
      return;
    }
    const { text, line } = read;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      // JSON.parse often names no position; the strict scanner finds the first problem and its column.
      const problem = strictJsonProblem(text);
      yield {
        file: display,
        line,
        col: problem ? problem.offset + 1 : 1,
        path: '',
        message: `invalid JSON: ${problem?.message ?? errorMessage(err)}`,
      };
      continue;
    }
    if (nestsDeeperThan(value, SOURCE_LIMITS.maxDepth)) {
      const problem = strictJsonProblem(text);
      yield {
        file: display,
        line,
        col: problem ? problem.offset + 1 : 1,
        path: '',
        message: `nesting deeper than ${SOURCE_LIMITS.maxDepth} levels (the limit for suite files)`,
      };
      continue;
    }
    let doc: PositionedDocument | undefined;
    yield {
      value,
      origin: `${display}:${line}`,
      locate(path, message, opts) {
        // Positions inside a line are only computed for lines that have an error.
        doc ??= new PositionedDocument(display, text, line - 1);
        return doc.issue(path, message, opts);
      },
    };
  }
}

/** Columns a CSV maps onto case fields; `metadata.<k>` goes to metadata and any other column to vars. */
const CSV_FIELDS = new Set(['id', 'name', 'description', 'input', 'expected', 'tags', 'timeout', 'repeat']);

async function* readCsv(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  const parser = new CsvParser();
  let header: string[] | null = null;
  const toCase = (rec: CsvRecord): RawCase | SuiteIssue => {
    const cols = header as string[];
    const value: Record<string, unknown> = {};
    const fieldCol = new Map<string, number>();
    const vars: Record<string, unknown> = {};
    const metadata: Record<string, unknown> = {};
    for (const [i, col] of cols.entries()) {
      const cell = rec.fields[i] ?? '';
      if (cell === '' && col !== 'input') continue;
      if (CSV_FIELDS.has(col)) {
        fieldCol.set(col, i);
        if (col === 'tags')
          value.tags = cell
            .split(/[;,]/)
            .map((t) => t.trim())
            .filter(Boolean);
        else if (col === 'timeout' || col === 'repeat')
          value[col] = /^\s*-?\d+(\.\d+)?\s*$/.test(cell) ? Number(cell) : cell;
        else value[col] = cell;
      } else if (col.startsWith('metadata.')) metadata[col.slice(9)] = cell;
      else vars[col.startsWith('vars.') ? col.slice(5) : col] = cell;
    }
    if (Object.keys(vars).length > 0) value.vars = vars;
    if (Object.keys(metadata).length > 0) value.metadata = metadata;
    if (rec.fields.length > cols.length) {
      const pos = rec.positions[cols.length] ?? { line: rec.line, col: 1 };
      return {
        file: display,
        ...pos,
        path: '',
        message: `record has ${rec.fields.length} fields; the header has ${cols.length}`,
      };
    }
    return {
      value,
      origin: `${display}:${rec.line}`,
      locate(path, message) {
        const i = typeof path[0] === 'string' ? fieldCol.get(path[0]) : undefined;
        const pos = i !== undefined ? rec.positions[i] : { line: rec.line, col: 1 };
        return { file: display, line: pos?.line ?? rec.line, col: pos?.col ?? 1, path: pathString(path), message };
      },
    };
  };
  const handle = function* (records: CsvRecord[]): Generator<RawCase | SuiteIssue> {
    for (const rec of records) {
      if (!header) {
        header = rec.fields.map((f) => f.trim());
        if (!header.includes('input')) {
          yield { file: display, line: rec.line, col: 1, path: '', message: "CSV header has no 'input' column" };
        }
        continue;
      }
      yield toCase(rec);
    }
  };
  // Fed line by line (strict UTF-8 per line); a quoted field may span lines, the parser keeps its state. A record
  // still open after the size limit (an unterminated quote, say) is an issue, not a buffer that grows with the file.
  let pending = 0;
  let pendingFrom = 1;
  for await (const read of lines(file, display, hash)) {
    if ('message' in read) {
      yield read;
      return;
    }
    const text = read.newline ? `${read.text}\n` : read.text;
    if (pending === 0) pendingFrom = read.line;
    pending += text.length;
    const records = parser.feed(text);
    if (records.length > 0) pending = 0;
    else if (pending > SOURCE_LIMITS.maxBytes) {
      yield {
        file: display,
        line: pendingFrom,
        col: 1,
        path: '',
        message: `CSV record longer than ${formatBytes(SOURCE_LIMITS.maxBytes)} (an unterminated quote?)`,
      };
      return;
    }
    yield* handle(records);
  }
  yield* handle(parser.end());
}

async function* readDocument(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  const source = readSourceText(file, display);
  if ('issue' in source) {
    yield source.issue;
    return;
  }
  hash?.update(source.bytes);
  const doc = new PositionedDocument(display, source.text, 0, { json: file.toLowerCase().endsWith('.json') });
  const syntax = doc.syntaxIssues();
  yield* syntax;
  if (doc.fatal) return;
  const value = doc.toJS();
  if (!Array.isArray(value)) {
    if (syntax.length === 0) yield doc.issue([], 'a case file must hold a list of cases');
    return;
  }
  for (let i = 0; i < value.length; i++) {
    yield { value: value[i], locate: (path, message, opts) => doc.issue([i, ...path], message, opts) };
  }
}
