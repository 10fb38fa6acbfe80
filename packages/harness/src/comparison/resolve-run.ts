import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../core/errors.js';
import type { ExperimentView } from '../core/view.js';
import { firstZodIssue } from '../core/zod-issues.js';

/** A run opened for reading; `close()` releases whatever backs it (the run index, when it came from there). */
export interface OpenedRun {
  /** The run as a streamed view (loaded on first call). */
  view(): Promise<ExperimentView>;
  /** Where it came from: a path, or `store:<id>`. */
  source: string;
  /** The run's journal file when it has one (comparison reads it directly, which is faster). */
  journal: string | null;
  close(): Promise<void>;
}

export interface ResolveRunOptions {
  /** Run index URL or SQLite file (as `harness runs --store`). */
  store?: string | undefined;
  /** Folder of run folders the index is kept in sync with; default `runs`. */
  runsDir?: string | undefined;
}

/** The reference names neither a readable run nor a stored one (a usage error). */
export class RunReferenceError extends Error {
  readonly code = 'AEH_ERR_RUN_REFERENCE';
  override name = 'RunReferenceError';
}

/**
 * Open a run named on the command line: a run folder, a journal (`.jsonl`) or an experiment JSON file; anything
 * else is looked up as a run id (or unique id prefix) in the run index. Stored runs are read from their run
 * folder when it still exists, otherwise streamed from the index itself.
 */
export async function resolveRun(ref: string, options: ResolveRunOptions = {}): Promise<OpenedRun> {
  const { loadRun } = await import('../runner/run-folder.js');
  if (existsSync(ref)) {
    if (!statSync(ref).isDirectory() && /\.json$/i.test(ref)) {
      // Read now, so a file that is no experiment at all is a usage error (exit 2), not a crash later.
      const view = await experimentFileView(ref);
      return { view: async () => view, source: ref, journal: null, close: async () => {} };
    }
    if (statSync(ref).isDirectory() && !journalOf(ref) && !existsSync(join(ref, 'experiment.json'))) {
      throw new RunReferenceError(`${ref}: not a run folder (no journal.jsonl or experiment.json)`);
    }
    return { view: once(() => loadRun(ref)), source: ref, journal: journalOf(ref), close: async () => {} };
  }
  if (/\.(json|jsonl)$/i.test(ref)) {
    throw new RunReferenceError(`run not found: ${ref} (no such file or folder)`);
  }
  const runsDir = options.runsDir ?? 'runs';
  if (!options.store && !process.env.HARNESS_STORE_URL && !existsSync(runsDir)) {
    // No index to ask (and no reason to create one for what is probably a typo).
    throw new RunReferenceError(`run not found: '${ref}' is not a run folder, journal or experiment file`);
  }
  // Hook into the run store: ids resolve through the index (src/store), kept in sync with the runs folder.
  const { openStore } = await import('../store/run-store.js');
  const { RunLookupError } = await import('../store/queries.js');
  const store = await openStore({ store: options.store, runsDir });
  let keepOpen = false;
  try {
    await store.syncIndex(runsDir);
    const run = await store.getRun(ref);
    if (run.location && existsSync(run.location)) {
      const location = run.location;
      return {
        view: once(() => loadRun(location)),
        source: location,
        journal: journalOf(location),
        close: async () => {},
      };
    }
    const view = await store.runView(run.id);
    keepOpen = true;
    return { view: async () => view, source: `store:${run.id}`, journal: null, close: () => store.close() };
  } catch (err) {
    if (err instanceof RunLookupError) {
      throw new RunReferenceError(
        `run not found: '${ref}' is not a run folder, journal or experiment file, and ${err.message} (index: ${store.target.display})`,
      );
    }
    throw err;
  } finally {
    if (!keepOpen) await store.close();
  }
}

/**
 * An experiment JSON file as a view: this project's format, or a result file of the seed's origin project
 * (converted on read). Anything else is a RunReferenceError naming the file and what is wrong.
 */
async function experimentFileView(file: string): Promise<ExperimentView> {
  const { readFile } = await import('node:fs/promises');
  const { Experiment } = await import('../core/experiment.js');
  const { viewOf } = await import('../core/view.js');
  const { fromOriginExperiment, isOriginExperiment } = await import('./origin-format.js');
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new RunReferenceError(`${file}: not valid JSON (${errorMessage(err)})`);
  }
  if (isOriginExperiment(raw)) {
    try {
      return viewOf(fromOriginExperiment(raw, file));
    } catch (err) {
      throw new RunReferenceError(
        errorMessage(err).startsWith(file) ? errorMessage(err) : `${file}: ${errorMessage(err)}`,
      );
    }
  }
  const parsed = Experiment.safeParse(raw);
  if (!parsed.success) {
    throw new RunReferenceError(
      `${file}: not an experiment (${firstZodIssue(parsed.error)}); expected a harness experiment.json or a result file of the origin harness`,
    );
  }
  return viewOf(parsed.data);
}

/** The journal behind a run path, if any (the same preference as `loadRun`: a folder's journal first). */
function journalOf(path: string): string | null {
  if (statSync(path).isDirectory()) {
    const journal = join(path, 'journal.jsonl');
    return existsSync(journal) ? journal : null;
  }
  return path.endsWith('.jsonl') ? path : null;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => {
    value ??= load();
    return value;
  };
}
