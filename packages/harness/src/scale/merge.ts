import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { makeDirectory } from '../core/directories.js';
import type { ResultLocation } from '../core/execution.js';
import type { ExperimentState, MetricResult, ThresholdOutcome, ThresholdRule } from '../core/experiment.js';
import { sortedKeysJson } from '../core/hash.js';
import { itemAt } from '../core/item-at.js';
import type { TestCaseResult } from '../core/result.js';
import type { MetricSpec } from '../core/suite.js';
import type { ExperimentHeader, ExperimentView } from '../core/view.js';
import { AgentRunner } from '../runner/agent-runner.js';
import {
  indexJournal,
  JOURNAL_FILE,
  type JournalIndex,
  JournalWriter,
  readIndexedResults,
  sortLocations,
} from '../runner/journal.js';
import { EXPERIMENT_FILE, viewOfJournal, writeExperimentFile } from '../runner/run-folder.js';
import { slimResult } from '../runner/slim.js';
import { checkThresholds } from '../runner/thresholds.js';
import type { SecretScrubber } from '../secrets/scrubber.js';
import { lenientEnv } from './env.js';
import { remoteAgent } from './remote-agent.js';
import { formatShard, type ShardRecord, shardOfHeader } from './shard.js';

/** A merge that cannot be done as asked (different suites, missing shards, bad inputs): a usage error. */
export class MergeError extends Error {
  readonly code = 'AEH_ERR_MERGE';
  override name = 'MergeError';
}

export interface MergeOptions {
  /** Run folders (or their `journal.jsonl`), typically the shards of one suite. */
  runs: string[];
  /** Folder for the merged run (must not hold a run yet). */
  outDir: string;
  /** Suite file to take metrics, thresholds and plugins from (must have the runs' content hash). */
  suite?: string;
  /** Merge even when shards are missing; the merged run is then marked partial (state cancelled). */
  allowPartial?: boolean;
  /** Check the suite's thresholds (default true). */
  thresholds?: boolean;
  /** Receives warnings (duplicate keys, differing agents...). Default: stderr. */
  warn?: (message: string) => void;
}

export interface MergeResult {
  runDir: string;
  journalPath: string;
  experimentPath: string;
  view: ExperimentView;
  state: ExperimentState;
  metrics: Record<string, MetricResult>;
  thresholds: ThresholdOutcome | null;
  /** Results in the merged run (case x repeat keys). */
  results: number;
  /** Secret scrubber of the suite the metrics came from, when one was loaded. */
  redactor?: SecretScrubber;
  /** 0 thresholds met (or none), 1 thresholds failed, 3 partial (a shard missing or interrupted). */
  exitCode: 0 | 1 | 3;
}

/** Metric definitions (and where they came from) used to recompute the merged run's metrics. */
interface MetricSource {
  metrics: MetricSpec[];
  thresholds: Record<string, ThresholdRule>;
  baseDir: string;
  redactor?: SecretScrubber;
}

interface Input {
  display: string;
  index: JournalIndex;
  header: ExperimentHeader;
  shard: ShardRecord | null;
}

/** The runs being merged: at least one, so the first is there to compare the others with. */
type Inputs = [Input, ...Input[]];

/** Recorded by shard and queue runs in `metadata.suite_metrics`, so a merge can recompute metrics offline. */
export interface RecordedMetrics {
  metrics: MetricSpec[];
  thresholds: Record<string, ThresholdRule>;
}

/**
 * Combine runs of one suite (usually the shards of `--shard i/n`) into one run folder whose results,
 * metrics, intervals and thresholds equal those of a single unsharded run: results are ordered by suite
 * position then repeat (as the runner orders them) and metrics are recomputed by the runner's own code
 * over the slimmed results. Refuses runs of different suites or suite versions (content hash).
 */
export async function mergeRuns(options: MergeOptions): Promise<MergeResult> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`harness: warning: ${m}\n`));
  const [firstRun, ...laterRuns] = options.runs;
  if (firstRun === undefined) throw new MergeError('merge needs at least one run folder');
  const inputs: Inputs = [openInput(firstRun), ...laterRuns.map(openInput)];
  checkSameSuite(inputs);
  const partial = checkShards(inputs, options.allowPartial === true, warn);
  checkAgents(inputs, warn);

  const outDir = resolve(options.outDir);
  const journalPath = join(outDir, JOURNAL_FILE);
  if (existsSync(journalPath)) throw new MergeError(`${display(outDir)} already holds a run; choose another --out`);
  for (const input of inputs) {
    if (resolve(input.index.path, '..') === outDir) {
      throw new MergeError(`--out ${display(outDir)} is one of the runs being merged`);
    }
  }

  const source = await metricSource(inputs, options.suite, warn);
  const runner = new AgentRunner(remoteAgent(inputs[0].header.agent.adapter, 'the shard runs'), {
    metrics: source.metrics,
    context: { baseDir: source.baseDir, env: process.env },
  });

  // A key present in several runs (a shard given twice, overlapping runs): the run named last wins.
  const owner = new Map<string, number>();
  inputs.forEach((input, i) => {
    for (const loc of input.index.results) owner.set(loc.key, i);
  });
  const duplicates = inputs.reduce((n, input) => n + input.index.results.length, 0) - owner.size;
  if (duplicates > 0) {
    warn(`${duplicates} case x repeat key(s) appear in more than one run; the run named last wins`);
  }

  const first = inputs[0].header;
  const { shard: _shard, ...metadata } = first.metadata;
  const header: ExperimentHeader = {
    ...first,
    id: randomUUID().replace(/-/g, '').slice(0, 12),
    state: 'running',
    started_at: inputs.map((i) => i.header.started_at).sort()[0] ?? first.started_at,
    finished_at: null,
    metrics: {},
    thresholds: null,
    metadata: {
      ...metadata,
      merged_from: inputs.map((i) => ({
        run: i.header.id,
        path: i.display,
        shard: i.shard ? formatShard(i.shard) : null,
        state: stateOf(i.index),
        results: i.index.results.length,
      })),
    },
  };

  makeDirectory(outDir);
  const scrub = source.redactor ? (t: string) => (source.redactor as SecretScrubber).text(t) : undefined;
  const journal = JournalWriter.create(journalPath, scrub);
  const locations: ResultLocation[] = [];
  const slim: TestCaseResult[] = [];
  try {
    journal.header(header);
    const streams = inputs.map((input, i) => ({
      locations: input.index.results.filter((l) => owner.get(l.key) === i),
      path: input.index.path,
    }));
    for (const { result, index } of mergeInOrder(streams)) {
      locations.push(journal.result(result, index));
      slim.push(slimResult(result));
    }
    const metrics = runner.computeMetrics(slim);
    slim.length = 0;
    const rules = source.thresholds;
    const thresholds =
      options.thresholds !== false && Object.keys(rules).length > 0 ? checkThresholds(metrics, rules) : null;
    const state: ExperimentState = partial ? 'cancelled' : 'completed';
    const finishedAt = inputs
      .map((i) => i.index.end?.finished_at ?? i.header.started_at)
      .sort()
      .at(-1) as string;
    const end = { state, finished_at: finishedAt, metrics, thresholds };
    journal.end(end);
    journal.close();

    const view = viewOfJournal({
      path: journalPath,
      header,
      end: { type: 'end', ...end },
      results: sortLocations(locations),
      badLines: 0,
    });
    const experimentPath = join(outDir, EXPERIMENT_FILE);
    await writeExperimentFile(view, experimentPath, scrub);
    return {
      runDir: outDir,
      journalPath,
      experimentPath,
      view,
      state,
      metrics,
      thresholds,
      results: locations.length,
      redactor: source.redactor,
      exitCode: state === 'cancelled' ? 3 : thresholds && !thresholds.passed ? 1 : 0,
    };
  } finally {
    journal.close();
  }
}

function openInput(path: string): Input {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new MergeError(`run not found: ${path}`);
  const journal = statSync(abs).isDirectory() ? join(abs, JOURNAL_FILE) : abs;
  if (!existsSync(journal) || !journal.endsWith('.jsonl')) {
    throw new MergeError(`${path}: not a run folder with a ${JOURNAL_FILE} (merge reads run journals)`);
  }
  const index = indexJournal(journal);
  if (!index.header) throw new MergeError(`${display(journal)}: journal has no header line`);
  return {
    display: display(statSync(abs).isDirectory() ? abs : resolve(abs, '..')),
    index,
    header: index.header,
    shard: shardOfHeader(index.header.metadata),
  };
}

function describeSuite(input: Input): string {
  const s = input.header.suite;
  return `${input.display}: suite '${s.name}' version ${s.version}, content ${s.content_hash.slice(0, 12) || '(unknown)'}`;
}

/** Shards must be runs of the same suite file: same name, version and content hash. */
function checkSameSuite(inputs: Inputs): void {
  const key = (i: Input) => sortedKeysJson([i.header.suite.name, i.header.suite.version, i.header.suite.content_hash]);
  const first = key(inputs[0]);
  if (inputs.every((i) => key(i) === first)) return;
  throw new MergeError(
    `cannot merge runs of different suites or suite versions:\n${inputs.map((i) => `  ${describeSuite(i)}`).join('\n')}\n` +
      'merge combines shards of one suite file (same name, version and content hash); re-run the shards from the same commit',
  );
}

/** Returns true when the merged run is partial (shards missing or interrupted, allowed by the caller). */
function checkShards(inputs: Input[], allowPartial: boolean, warn: (m: string) => void): boolean {
  const shards = inputs.map((i) => i.shard);
  const sharded = shards.filter((s): s is ShardRecord => s !== null);
  let partial = false;
  const problems: string[] = [];
  if (sharded.length > 0 && sharded.length < inputs.length) {
    const plain = inputs.filter((i) => !i.shard).map((i) => i.display);
    throw new MergeError(`cannot mix shard runs with unsharded runs (${plain.join(', ')} ran every case)`);
  }
  const [firstShard] = sharded;
  if (firstShard) {
    const counts = new Set(sharded.map((s) => s.count));
    if (counts.size > 1) {
      throw new MergeError(
        `cannot merge shards of different splits:\n${inputs.map((i) => `  ${i.display}: shard ${formatShard(i.shard as ShardRecord)}`).join('\n')}`,
      );
    }
    const rules = new Set(sharded.map((s) => s.assignment));
    if (rules.size > 1) throw new MergeError(`the shards assign cases differently (${[...rules].join('; ')})`);
    const count = firstShard.count;
    const seen = new Set(sharded.map((s) => s.index));
    if (seen.size < sharded.length)
      warn('the same shard is given more than once; for a repeated key the run named last wins');
    const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !seen.has(k));
    if (missing.length > 0)
      problems.push(`shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing`);
  }
  for (const input of inputs) {
    const state = stateOf(input.index);
    if (state !== 'completed') {
      problems.push(
        `${input.display} is ${state}${state === 'cancelled' ? ` (interrupted; finish it with harness run <suite>${input.shard ? ` --shard ${formatShard(input.shard)}` : ''} --resume ${input.display})` : ''}`,
      );
    }
  }
  if (problems.length > 0) {
    if (!allowPartial) {
      throw new MergeError(
        `the runs do not cover the whole suite:\n${problems.map((p) => `  ${p}`).join('\n')}\npass --allow-partial to merge them anyway (the merged run is then marked partial)`,
      );
    }
    for (const p of problems) warn(`partial merge: ${p}`);
    partial = true;
  }
  return partial;
}

function checkAgents(inputs: Inputs, warn: (m: string) => void): void {
  const first = sortedKeysJson(inputs[0].header.agent);
  const differing = inputs.filter((i) => sortedKeysJson(i.header.agent) !== first).map((i) => i.display);
  if (differing.length > 0) {
    warn(
      `the agent recorded in ${differing.join(', ')} differs from ${inputs[0].display}'s; the merged run records the first`,
    );
  }
}

function stateOf(index: JournalIndex): ExperimentState {
  if (index.end) return index.end.state;
  return 'cancelled';
}

/**
 * Where the merged run's metric definitions come from, most faithful first: a `--suite` file, the suite
 * file the runs name (when it still has their content hash), or the definitions the runs recorded.
 */
async function metricSource(
  inputs: Inputs,
  suitePath: string | undefined,
  warn: (m: string) => void,
): Promise<MetricSource> {
  const header = inputs[0].header;
  const hash = header.suite.content_hash;
  const { loadSuite, SuiteValidationError } = await import('../suites/loader.js');
  const tryLoad = async (path: string) => {
    try {
      return await loadSuite(path, { env: lenientEnv() });
    } catch (err) {
      if (err instanceof SuiteValidationError) throw new MergeError(`--suite ${path}: ${err.message}`);
      throw err;
    }
  };
  if (suitePath) {
    const suite = await tryLoad(suitePath);
    if (suite.contentHash !== hash) {
      throw new MergeError(
        `--suite ${suitePath} has content ${suite.contentHash.slice(0, 12)}, but the runs were made with ${hash.slice(0, 12)}: it is another version of the suite`,
      );
    }
    return { metrics: suite.metrics, thresholds: suite.thresholds, baseDir: suite.baseDir, redactor: suite.redactor };
  }
  const named = header.suite.path;
  if (named && existsSync(named)) {
    try {
      const suite = await loadSuite(named, { env: lenientEnv() });
      if (suite.contentHash === hash) {
        return {
          metrics: suite.metrics,
          thresholds: suite.thresholds,
          baseDir: suite.baseDir,
          redactor: suite.redactor,
        };
      }
    } catch {
      // The suite file moved on or no longer loads here: fall back to what the runs recorded.
    }
  }
  const recorded = header.metadata.suite_metrics as RecordedMetrics | undefined;
  if (recorded && Array.isArray(recorded.metrics)) {
    return { metrics: recorded.metrics, thresholds: recorded.thresholds ?? {}, baseDir: process.cwd() };
  }
  const names = Object.keys(inputs[0].index.end?.metrics ?? {});
  warn(
    "the runs do not record their metric definitions and the suite file is not available: recomputing metrics by name with default options and no thresholds (pass --suite <file> to use the suite's own)",
  );
  return { metrics: names.length > 0 ? names : ['success_rate'], thresholds: {}, baseDir: process.cwd() };
}

/** K-way merge of per-run result streams (each already in suite order) into the runner's global order. */
function* mergeInOrder(
  streams: { locations: ResultLocation[]; path: string }[],
): Generator<{ result: TestCaseResult; index: number }> {
  const cursors = streams.map((s) => {
    const iterator = readIndexedResults({ path: s.path, results: s.locations });
    return { iterator, locations: s.locations, at: 0, current: iterator.next() };
  });
  for (;;) {
    // The stream whose next result comes first (the earliest stream on a tie); a stream not done has a
    // location for its current result.
    let best: (typeof cursors)[number] | undefined;
    for (const c of cursors) {
      if (c.current.done) continue;
      if (!best || compare(itemAt(c.locations, c.at), itemAt(best.locations, best.at)) < 0) best = c;
    }
    if (!best) return;
    const result = best.current.value as TestCaseResult;
    const index = itemAt(best.locations, best.at).index;
    best.at++;
    best.current = best.iterator.next();
    yield { result, index };
  }
}

function compare(a: ResultLocation, b: ResultLocation): number {
  if (a.index !== b.index) return a.index - b.index;
  if (a.test_id !== b.test_id) return a.test_id < b.test_id ? -1 : 1;
  return a.repeat - b.repeat;
}

function display(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') ? rel : p;
}
