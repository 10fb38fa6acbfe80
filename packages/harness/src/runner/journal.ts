import { closeSync, existsSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type { ResultLocation } from '../core/execution.js';
import type { ExperimentState, MetricResult, ThresholdOutcome } from '../core/experiment.js';
import { resultKey, type TestCaseResult } from '../core/result.js';
import type { ExperimentHeader } from '../core/view.js';

/** First line of a journal: the experiment without results, state "running". */
export interface JournalHeaderEntry {
  type: 'header';
  experiment: ExperimentHeader;
}
/** One finished case x repeat. `index` is the case's position in the suite (orders results on read). */
export interface JournalResultEntry {
  type: 'result';
  index?: number;
  result: TestCaseResult;
}
/** Written when the run ends or is interrupted. */
export interface JournalEndEntry {
  type: 'end';
  state: ExperimentState;
  finished_at: string;
  metrics: Record<string, MetricResult>;
  thresholds: ThresholdOutcome | null;
}
/** Marks where a resumed run started appending. Readers ignore it. */
export interface JournalResumeEntry {
  type: 'resume';
  at: string;
}
export type JournalEntry = JournalHeaderEntry | JournalResultEntry | JournalEndEntry | JournalResumeEntry;

export const JOURNAL_FILE = 'journal.jsonl';

/**
 * Appends journal lines with a synchronous write per line, so a line is in the kernel's hands before the
 * next case starts and a SIGKILL loses nothing already finished. `scrub` redacts secrets from each line.
 */
export class JournalWriter {
  #fd: number | null;
  #offset: number;
  readonly #scrub: (line: string) => string;

  private constructor(fd: number, offset: number, scrub?: (line: string) => string) {
    this.#fd = fd;
    this.#offset = offset;
    this.#scrub = scrub ?? ((l) => l);
  }

  /** Create a new journal (fails if the file exists). */
  static create(path: string, scrub?: (line: string) => string): JournalWriter {
    return new JournalWriter(openSync(path, 'wx'), 0, scrub);
  }

  /** Open an existing journal for appending; a truncated last line (killed writer) is terminated first. */
  static append(path: string, scrub?: (line: string) => string): JournalWriter {
    const fd = openSync(path, 'a+');
    let size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        writeSync(fd, '\n');
        size++;
      }
    }
    return new JournalWriter(fd, size, scrub);
  }

  /** Append one entry as one line; returns where the line (without its newline) starts and its length. */
  write(entry: JournalEntry): { offset: number; length: number } {
    if (this.#fd === null) throw new Error('journal is closed');
    const line = this.#scrub(JSON.stringify(entry));
    const length = Buffer.byteLength(line);
    writeSync(this.#fd, `${line}\n`);
    const offset = this.#offset;
    this.#offset += length + 1;
    return { offset, length };
  }

  header(experiment: ExperimentHeader): void {
    this.write({ type: 'header', experiment });
  }

  /** Append a result; the returned location lets a reader fetch it without re-indexing the file. */
  result(result: TestCaseResult, index = 0): ResultLocation {
    const { offset, length } = this.write({ type: 'result', index, result });
    return {
      key: resultKey(result),
      test_id: result.test_id,
      repeat: result.repeat,
      index,
      offset,
      length,
    };
  }

  end(entry: Omit<JournalEndEntry, 'type'>): void {
    this.write({ type: 'end', ...entry });
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }
}

/** One line of a journal with its byte position, as read by `readJournalLines`. */
export interface JournalLine {
  offset: number;
  length: number;
  text: string;
}

/** Read a file line by line (in 1 MiB chunks) with byte offsets; never holds the whole file. */
export function* readJournalLines(path: string, chunkSize = 1 << 20): Generator<JournalLine> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(chunkSize);
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = 0;
    let position = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, chunkSize, position);
      if (n === 0) break;
      position += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, start);
        if (nl < 0) break;
        if (nl > start) {
          yield { offset: carryOffset + start, length: nl - start, text: data.toString('utf8', start, nl) };
        }
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryOffset += start;
    }
    if (carry.length > 0) yield { offset: carryOffset, length: carry.length, text: carry.toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** What a pass over a journal finds, without keeping result bodies in memory. */
export interface JournalIndex {
  path: string;
  header: ExperimentHeader | null;
  end: JournalEndEntry | null;
  /** Deduplicated results (last wins), in deterministic order: case index, then repeat. */
  results: ResultLocation[];
  /** Lines that did not parse (a truncated last line after a kill, or corruption). */
  badLines: number;
}

/**
 * Index a journal: header, last end entry, and the position of each result's last occurrence. Tolerates a
 * truncated or corrupt line (counted in `badLines`). `onResult` sees every parsed result in file order.
 */
export function indexJournal(path: string, onResult?: (result: TestCaseResult, index: number) => void): JournalIndex {
  let header: ExperimentHeader | null = null;
  let end: JournalEndEntry | null = null;
  let badLines = 0;
  const byKey = new Map<string, ResultLocation>();
  const firstSeen = new Map<string, number>();
  for (const line of readJournalLines(path)) {
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line.text) as JournalEntry;
    } catch {
      badLines++;
      continue;
    }
    if (!entry || typeof entry !== 'object') {
      badLines++;
      continue;
    }
    if (entry.type === 'header') {
      if (header === null) header = entry.experiment;
    } else if (entry.type === 'end') {
      end = entry;
    } else if (entry.type === 'result') {
      const r = entry.result;
      if (!r || typeof r.test_id !== 'string') {
        badLines++;
        continue;
      }
      const repeat = typeof r.repeat === 'number' ? r.repeat : 0;
      const key = resultKey({ test_id: r.test_id, repeat });
      if (!firstSeen.has(r.test_id)) firstSeen.set(r.test_id, firstSeen.size);
      const index = typeof entry.index === 'number' ? entry.index : (firstSeen.get(r.test_id) as number);
      byKey.set(key, { key, test_id: r.test_id, repeat, index, offset: line.offset, length: line.length });
      onResult?.(r, index);
    }
  }
  const results = [...byKey.values()].sort(compareLocations);
  return { path, header, end, results, badLines };
}

function compareLocations(a: ResultLocation, b: ResultLocation): number {
  if (a.index !== b.index) return a.index - b.index;
  if (a.test_id !== b.test_id) return a.test_id < b.test_id ? -1 : 1;
  return a.repeat - b.repeat;
}

/** Sort locations into the deterministic result order: case index, then repeat. */
export function sortLocations(locations: ResultLocation[]): ResultLocation[] {
  return locations.sort(compareLocations);
}

/**
 * Read the results an index points at, in its order, one line at a time. Reads go through a 1 MiB window,
 * so a journal written roughly in order costs few system calls. Lines are trusted as the harness wrote
 * them (JSON-parsed, shape-checked, not re-validated field by field).
 */
export function* readIndexedResults(index: Pick<JournalIndex, 'path' | 'results'>): Generator<TestCaseResult> {
  const fd = openSync(index.path, 'r');
  try {
    const windowSize = 1 << 20;
    let buf = Buffer.alloc(windowSize);
    let winStart = 0;
    let winLength = 0;
    for (const loc of index.results) {
      if (loc.offset < winStart || loc.offset + loc.length > winStart + winLength) {
        if (loc.length > buf.length) buf = Buffer.alloc(loc.length);
        winStart = loc.offset;
        winLength = readSync(fd, buf, 0, buf.length, loc.offset);
      }
      const start = loc.offset - winStart;
      const entry = JSON.parse(buf.toString('utf8', start, start + loc.length)) as JournalResultEntry;
      const r = entry.result;
      if (!r || typeof r.test_id !== 'string' || typeof r.status !== 'string' || !r.output) {
        throw new Error(`${index.path}: malformed result at byte ${loc.offset}`);
      }
      yield r;
    }
  } finally {
    closeSync(fd);
  }
}

/** The set of `test_id#repeat` keys already in a journal (for --resume). */
export function completedKeys(path: string): Set<string> {
  const keys = new Set<string>();
  if (!existsSync(path)) return keys;
  for (const loc of indexJournal(path).results) keys.add(loc.key);
  return keys;
}
