import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { makeDirectory } from '../core/directories.js';
import { errorMessage } from '../core/errors.js';
import { Experiment } from '../core/experiment.js';
import { type ExperimentHeader, type ExperimentView, viewOf } from '../core/view.js';
import { firstZodIssue } from '../core/zod-issues.js';
import { indexJournal, JOURNAL_FILE, type JournalIndex, readIndexedResults } from './journal.js';

export const EXPERIMENT_FILE = 'experiment.json';

/** A filesystem-friendly slug of a suite name. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'run';
}

/** `YYYYMMDD-HHMMSS` in local time. */
export function timestampSlug(date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** Create `<root>/<YYYYMMDD-HHMMSS>-<slug>/` (with a numeric suffix if that folder exists) and return it. */
export function createRunFolder(name: string, root = 'runs', date = new Date()): string {
  const base = resolve(root, `${timestampSlug(date)}-${slugify(name)}`);
  let dir = base;
  for (let i = 2; existsSync(dir); i++) dir = `${base}-${i}`;
  makeDirectory(dir);
  return dir;
}

/** A view over a journal: the header merged with the last end entry, results streamed in order. */
export function viewOfJournal(index: JournalIndex): ExperimentView {
  if (!index.header) throw new Error(`${index.path}: journal has no header line`);
  const header: ExperimentHeader = { ...index.header };
  if (index.end) {
    header.state = index.end.state;
    header.finished_at = index.end.finished_at;
    header.metrics = index.end.metrics;
    header.thresholds = index.end.thresholds;
  } else if (header.state === 'running') {
    // No end line: the writer was killed. What is on disk is a partial run.
    header.state = 'cancelled';
  }
  header.suite = { ...header.suite };
  return {
    header,
    async *results() {
      yield* readIndexedResults(index);
    },
  };
}

/**
 * Open a stored run for reading: a run folder (journal preferred, experiment.json otherwise), a journal
 * file (`.jsonl`) or an experiment JSON file. Journal-backed views stream results from disk.
 */
export async function loadRun(pathOrFile: string): Promise<ExperimentView> {
  const path = resolve(pathOrFile);
  if (!existsSync(path)) throw new Error(`run not found: ${pathOrFile}`);
  if (statSync(path).isDirectory()) {
    const journal = join(path, JOURNAL_FILE);
    if (existsSync(journal)) return viewOfJournal(indexJournal(journal));
    const experiment = join(path, EXPERIMENT_FILE);
    if (existsSync(experiment)) return loadExperimentFile(experiment);
    throw new Error(`${pathOrFile}: not a run folder (no ${JOURNAL_FILE} or ${EXPERIMENT_FILE})`);
  }
  if (path.endsWith('.jsonl')) return viewOfJournal(indexJournal(path));
  return loadExperimentFile(path);
}

function loadExperimentFile(path: string): ExperimentView {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${errorMessage(err)})`);
  }
  const parsed = Experiment.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${path}: not an experiment file (${firstZodIssue(parsed.error)})`);
  }
  return viewOf(parsed.data);
}

/**
 * Files written from a view whose scrub changed nothing: the same view written again (the json reporter after
 * `experiment.json`) is a copy of that file, byte for byte, instead of a second pass over the journal. Kept only while
 * the file is as written (size and modification time).
 */
const writtenAsIs = new WeakMap<ExperimentView, { path: string; size: number; mtimeMs: number }>();

/**
 * Write `view` to `destination` by copying a file already written from the same view with nothing scrubbed, when
 * there is one and it is unchanged (then the bytes are exactly what writeExperimentFile would write unscrubbed).
 * Returns false when there is none: the caller writes the file.
 */
export function copyWrittenExperiment(view: ExperimentView, destination: string): boolean {
  const written = writtenAsIs.get(view);
  if (!written) return false;
  const now = statSync(written.path, { throwIfNoEntry: false });
  if (!now || now.size !== written.size || now.mtimeMs !== written.mtimeMs) return false;
  if (resolve(written.path) === resolve(destination)) return true;
  const tmp = join(resolve(destination, '..'), `.${basename(destination)}.${process.pid}.tmp`);
  try {
    copyFileSync(written.path, tmp);
    renameSync(tmp, destination);
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
  return true;
}

/**
 * Write a view as an Experiment JSON file, streaming results one at a time (a 100,000-case run is never
 * serialised as one string). Written to a temp file and renamed, so readers never see half a file.
 */
export async function writeExperimentFile(
  view: ExperimentView,
  destination: string,
  scrub: (text: string) => string = (t) => t,
): Promise<void> {
  // Whether scrubbing changed any text: if not, this file is also the view written unscrubbed (copyWrittenExperiment).
  let asIs = true;
  const scrubbed = (text: string) => {
    const out = scrub(text);
    if (out !== text) asIs = false;
    return out;
  };
  const tmp = join(resolve(destination, '..'), `.${basename(destination)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  // Writes are batched into ~1 MiB chunks: one system call per chunk, not per result.
  let pending: string[] = [];
  let pendingLength = 0;
  const put = (text: string) => {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= 1 << 20) flush();
  };
  const flush = () => {
    if (pending.length === 0) return;
    writeSync(fd, pending.join(''));
    pending = [];
    pendingLength = 0;
  };
  try {
    const head = scrubbed(JSON.stringify(view.header, null, 2));
    // Splice the results array in as the last key of the header object.
    put(`${head.slice(0, head.lastIndexOf('}')).trimEnd()},\n  "results": [`);
    let first = true;
    for await (const result of view.results()) {
      put(`${first ? '\n    ' : ',\n    '}${scrubbed(JSON.stringify(result))}`);
      first = false;
    }
    put(first ? ']\n}\n' : '\n  ]\n}\n');
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, destination);
  if (asIs) {
    const { size, mtimeMs } = statSync(destination);
    writtenAsIs.set(view, { path: resolve(destination), size, mtimeMs });
  } else writtenAsIs.delete(view);
}
