import type { Kysely } from 'kysely';
import { errorMessage } from '../core/errors.js';
import type { TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import { withoutUrlCredentials } from '../secrets/scrubber.js';
import { openStoreConnection, resolveStoreTarget, type StoreTarget, type StoreTargetOptions } from './connect.js';
import {
  type IndexOutcome,
  type IndexRunOptions,
  indexRun,
  type RebuildOptions,
  rebuildIndex,
  removeFromIndex,
  type SqliteHandle,
  type StoreContext,
  type SyncOutcome,
  syncIndex,
} from './indexer.js';
import { type JsonCodec, jsonCodec } from './json.js';
import { migrateStore, sqliteStoreIsCurrent } from './migrations.js';
import {
  type CaseDeltaReport,
  caseDeltas,
  changedSince,
  flakyCases,
  getCase,
  getRun,
  type HistoryOptions,
  type ListRunsOptions,
  listCases,
  listRuns,
  listSuites,
  metricHistory,
  type RunVersion,
  resolveRunId,
  runView,
  streamResults,
} from './queries.js';
import type { StoreDatabase } from './schema.js';
import type {
  CaseFilter,
  CaseSummary,
  FlakyOptions,
  FlakyReport,
  HistoryPoint,
  Page,
  RunDetail,
  RunSummary,
  SuiteSummary,
} from './types.js';

/**
 * The run index: experiments, per-case results and metric values, in SQLite (default,
 * `runs/index.sqlite`) or PostgreSQL (`--store postgres://...` or HARNESS_STORE_URL), through one Kysely
 * code path. The run folders stay the source of truth; the index can always be rebuilt from them.
 *
 * @example
 * const store = await openStore({ runsDir: 'runs' });
 * await store.indexRun('runs/20260101-120000-support');
 * console.log((await store.listRuns()).items.map((r) => r.id));
 * await store.close();
 */
export class RunStore {
  readonly #ctx: StoreContext;
  private constructor(
    readonly target: StoreTarget,
    readonly db: Kysely<StoreDatabase>,
    readonly codec: JsonCodec,
    sqlite?: SqliteHandle,
  ) {
    this.#ctx = { db, codec, sqlite };
  }

  /** Open (and migrate) the store described by `options`. */
  static async open(options: StoreTargetOptions = {}): Promise<RunStore> {
    const target = resolveStoreTarget(options);
    const { db, sqlite } = await openStoreConnection(target);
    try {
      if (!(sqlite && sqliteStoreIsCurrent(sqlite)))
        await migrateStore(db as unknown as Kysely<unknown>, target.dialect);
    } catch (err) {
      await db.destroy().catch(() => {});
      throw new StoreOpenError(target, err);
    }
    return new RunStore(target, db, jsonCodec(target.dialect), sqlite);
  }

  indexRun(path: string, options?: IndexRunOptions): Promise<IndexOutcome> {
    return indexRun(this.#ctx, path, options);
  }
  syncIndex(runsDir: string): Promise<SyncOutcome> {
    return syncIndex(this.#ctx, runsDir);
  }
  rebuildIndex(runsDir: string, options?: RebuildOptions): Promise<SyncOutcome> {
    return rebuildIndex(this.#ctx, runsDir, options);
  }
  async removeRun(ref: string): Promise<RunSummary> {
    const run = await getRun(this.#ctx, ref);
    await removeFromIndex(this.#ctx, run.id);
    const { header: _h, evaluators: _e, tags: _t, ...summary } = run;
    return summary;
  }
  resolveRunId(ref: string): Promise<string> {
    return resolveRunId(this.#ctx, ref);
  }
  listRuns(options?: ListRunsOptions): Promise<Page<RunSummary>> {
    return listRuns(this.#ctx, options);
  }
  getRun(ref: string): Promise<RunDetail> {
    return getRun(this.#ctx, ref);
  }
  listCases(runId: string, filter?: CaseFilter): Promise<Page<CaseSummary>> {
    return listCases(this.#ctx, runId, filter);
  }
  getCase(runId: string, testId: string, repeat: number): Promise<TestCaseResult | null> {
    return getCase(this.#ctx, runId, testId, repeat);
  }
  listSuites(): Promise<SuiteSummary[]> {
    return listSuites(this.#ctx);
  }
  metricHistory(suite: string, metric: string, options?: HistoryOptions): Promise<HistoryPoint[]> {
    return metricHistory(this.#ctx, suite, metric, options);
  }
  flakyCases(suite: string, options?: FlakyOptions): Promise<FlakyReport> {
    return flakyCases(this.#ctx, suite, options);
  }
  /** A stored run as an ExperimentView (results streamed from the index), for reporters and compare. */
  runView(ref: string): Promise<ExperimentView> {
    return runView(this.#ctx, ref);
  }
  streamResults(runId: string): AsyncGenerator<TestCaseResult> {
    return streamResults(this.#ctx, runId);
  }
  /** Runs (re)indexed at or after `since`, by this process or another one (e.g. `harness run`). */
  changedSince(since: string): Promise<RunVersion[]> {
    return changedSince(this.#ctx, since);
  }
  caseDeltas(baselineId: string, candidateId: string): Promise<CaseDeltaReport> {
    return caseDeltas(this.#ctx, baselineId, candidateId);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/** Thrown when the store cannot be opened or migrated; the message never includes a password. */
export class StoreOpenError extends Error {
  readonly code = 'AEH_ERR_STORE_OPEN';
  override name = 'StoreOpenError';
  constructor(
    readonly target: StoreTarget,
    cause: unknown,
  ) {
    const reason = errorMessage(cause);
    super(`cannot open the run index at ${target.display}: ${scrub(reason, target)}`);
  }
}

function scrub(message: string, target: StoreTarget): string {
  return target.dialect === 'postgres' ? withoutUrlCredentials(message, target.location) : message;
}

/** Open the run index (see RunStore). */
export function openStore(options: StoreTargetOptions = {}): Promise<RunStore> {
  return RunStore.open(options);
}
