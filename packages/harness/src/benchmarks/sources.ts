import type { Hash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { CsvParser, type CsvRecord } from './csv.js';
import { type PathKey, PositionedDocument, pathString, type SuiteIssue } from './positions.js';

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

/** Split a byte stream into lines with 1-based line numbers (a trailing partial line is yielded too). */
async function* lines(file: string, hash?: Hash): AsyncGenerator<{ text: string; line: number }> {
  let carry = '';
  let line = 0;
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash?.update(chunk);
    const text = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      line++;
      yield { text: text.slice(start, nl).replace(/\r$/, ''), line };
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  carry += decoder.decode();
  if (carry.length > 0) yield { text: carry.replace(/\r$/, ''), line: line + 1 };
}

async function* readJsonl(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  for await (const { text, line } of lines(file, hash)) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
      yield {
        file: display,
        line,
        col: m ? Number(m[1]) + 1 : 1,
        path: '',
        message: `invalid JSON: ${err instanceof Error ? err.message : String(err)}`,
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
    for (let i = 0; i < cols.length; i++) {
      const col = cols[i];
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
  const decoder = new TextDecoder('utf-8');
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
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
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash?.update(chunk);
    yield* handle(parser.feed(decoder.decode(chunk, { stream: true })));
  }
  yield* handle(parser.feed(decoder.decode()));
  yield* handle(parser.end());
}

async function* readDocument(file: string, display: string, hash?: Hash): AsyncGenerator<RawCase | SuiteIssue> {
  const bytes = readFileSync(file);
  hash?.update(bytes);
  const doc = new PositionedDocument(display, bytes.toString('utf8'));
  const syntax = doc.syntaxIssues();
  yield* syntax;
  const value = doc.toJS();
  if (!Array.isArray(value)) {
    if (syntax.length === 0) yield doc.issue([], 'a case file must hold a list of cases');
    return;
  }
  for (let i = 0; i < value.length; i++) {
    yield { value: value[i], locate: (path, message, opts) => doc.issue([i, ...path], message, opts) };
  }
}
