import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../core/errors.js';
import { Experiment, ExperimentState, MetricResult, ThresholdOutcome } from '../core/experiment.js';
import { TestCaseResult } from '../core/result.js';
import { firstZodIssue } from '../core/zod-issues.js';

export const JOURNAL_FILE = 'journal.jsonl';
export const EXPERIMENT_FILE = 'experiment.json';

/** What a path given to the index points at. */
export interface RunSource {
  /** Absolute path of the run folder, or of the file when a bare file was given. */
  readonly location: string;
  readonly journal: string | null;
  readonly experiment: string | null;
}

/** Find the journal and/or experiment JSON for a run folder, journal file or experiment file. */
export function locateRun(path: string): RunSource | null {
  const abs = resolve(path);
  if (!existsSync(abs)) return null;
  if (statSync(abs).isDirectory()) {
    const journal = join(abs, JOURNAL_FILE);
    const experiment = join(abs, EXPERIMENT_FILE);
    const report = join(abs, 'report.json');
    const j = existsSync(journal) ? journal : null;
    const e = existsSync(experiment) ? experiment : existsSync(report) ? report : null;
    return j || e ? { location: abs, journal: j, experiment: e } : null;
  }
  if (abs.endsWith('.jsonl')) {
    // A journal inside a run folder is the folder; a loose journal stands for itself.
    const folder = dirname(abs);
    const experiment = basename(abs) === JOURNAL_FILE ? join(folder, EXPERIMENT_FILE) : null;
    return {
      location: basename(abs) === JOURNAL_FILE ? folder : abs,
      journal: abs,
      experiment: experiment && existsSync(experiment) ? experiment : null,
    };
  }
  return { location: abs, journal: null, experiment: abs };
}

const HeaderRecord = z.object({ type: z.literal('header'), experiment: z.looseObject({}) });
const ResultRecord = z.object({
  type: z.literal('result'),
  index: z.number().int().min(0).optional(),
  result: z.unknown(),
});
const EndRecord = z.looseObject({
  type: z.literal('end'),
  state: ExperimentState,
  finished_at: z.string().nullable().optional(),
  metrics: z.record(z.string(), MetricResult).optional(),
  thresholds: ThresholdOutcome.nullable().optional(),
});

export type ExperimentHeader = Omit<Experiment, 'results'>;

export type JournalEntry =
  | { type: 'header'; header: ExperimentHeader }
  | {
      type: 'result';
      result: TestCaseResult /** The case's position in the suite, when the writer recorded it. */;
      index?: number;
    }
  | { type: 'end'; end: z.infer<typeof EndRecord> }
  | { type: 'resume' };

export interface JournalChunk {
  entries: JournalEntry[];
  /** Byte offset just past the last line consumed. */
  offset: number;
  /** Lines that were not valid JSON or not a known record (a truncated tail line is not counted). */
  malformed: number;
}

/** Parse a header record's experiment (results, if any, are dropped). */
export function parseHeader(raw: unknown): ExperimentHeader {
  const { results: _results, ...header } = Experiment.parse({ ...(raw as object), results: [] });
  return header;
}

function parseLine(line: string): JournalEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'result') {
    const r = ResultRecord.safeParse(value);
    const parsed = r.success ? TestCaseResult.safeParse(r.data.result) : null;
    if (!r.success || !parsed?.success) return null;
    return r.data.index === undefined
      ? { type: 'result', result: parsed.data }
      : { type: 'result', result: parsed.data, index: r.data.index };
  }
  if (type === 'header') {
    const h = HeaderRecord.safeParse(value);
    if (!h.success) return null;
    try {
      return { type: 'header', header: parseHeader(h.data.experiment) };
    } catch {
      return null;
    }
  }
  // A resumed run marks where it started appending; nothing to index.
  if (type === 'resume') return { type: 'resume' };
  if (type === 'end') {
    const e = EndRecord.safeParse(value);
    return e.success ? { type: 'end', end: e.data } : null;
  }
  return null;
}

export interface ReadJournalOptions {
  /** Byte offset to start from (a previous chunk's `offset`). */
  from?: number;
  /** Entries per yielded chunk. */
  batch?: number;
  /**
   * When true (the run is live), a last line without a newline is left for the next read because the
   * writer may be mid-line. When false, it is parsed if it is complete JSON and ignored otherwise.
   */
  live?: boolean;
}

/** Stream a journal from a byte offset in chunks, without holding the file in memory. */
export async function* readJournal(file: string, options: ReadJournalOptions = {}): AsyncGenerator<JournalChunk> {
  const batch = options.batch ?? 500;
  let offset = options.from ?? 0;
  let entries: JournalEntry[] = [];
  let malformed = 0;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  const stream = createReadStream(file, { start: offset, highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = pendingLength > 0 ? Buffer.concat([...pending, piece]).toString('utf8') : piece.toString('utf8');
      offset += pendingLength + piece.length + 1;
      pending = [];
      pendingLength = 0;
      start = nl + 1;
      if (line.trim() === '') continue;
      const entry = parseLine(line);
      if (entry) entries.push(entry);
      else malformed++;
      if (entries.length >= batch) {
        yield { entries, offset, malformed };
        entries = [];
        malformed = 0;
      }
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingLength += chunk.length - start;
    }
  }
  if (pendingLength > 0 && !options.live) {
    // A killed writer leaves a truncated last line: keep it only if it is whole.
    const entry = parseLine(Buffer.concat(pending).toString('utf8'));
    if (entry) {
      entries.push(entry);
      offset += pendingLength;
    }
  }
  yield { entries, offset, malformed };
}

/** Read an experiment JSON file (schema_version "1"). Errors name the file and the field path. */
export async function readExperimentFile(file: string): Promise<Experiment> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${errorMessage(err)})`);
  }
  const parsed = Experiment.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: not an experiment: ${firstZodIssue(parsed.error)}`);
  }
  return parsed.data;
}
