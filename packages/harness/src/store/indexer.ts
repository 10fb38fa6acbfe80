import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { type Kysely, sql, type Transaction } from 'kysely';
import { errorMessage } from '../core/errors.js';
import type { MetricResult, ThresholdOutcome } from '../core/experiment.js';
import { resultKey, type TestCaseResult } from '../core/result.js';
import type { JsonCodec } from './json.js';
import { type ExperimentHeader, locateRun, type RunSource, readExperimentFile, readJournal } from './run-files.js';
import type { StoreDatabase } from './schema.js';

type Db = Kysely<StoreDatabase> | Transaction<StoreDatabase>;

export interface StoreContext {
  readonly db: Kysely<StoreDatabase>;
  readonly codec: JsonCodec;
  /**
   * The SQLite connection under `db`, when the store is SQLite: case rows are then inserted through prepared
   * statements on it (inside the same transaction) instead of a query built and compiled by Kysely per batch.
   */
  readonly sqlite?: SqliteHandle | undefined;
}

/** What the indexer uses of a better-sqlite3 Database. */
export interface SqliteHandle {
  prepare(source: string): { run(...params: unknown[]): unknown; pluck(): { all(...params: unknown[]): unknown[] } };
}

const CASE_RESULT_COLUMNS = [
  'experiment_id',
  'test_id',
  'repeat',
  'seq',
  'test_name',
  'status',
  'score',
  'duration',
  'attempts',
  'cost',
  'input_tokens',
  'output_tokens',
  'error',
  'started_at',
  'finished_at',
  'result',
] as const;

const insertSql = (table: string, columns: readonly string[]) =>
  `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`;

interface CaseStatements {
  result: { run(...params: unknown[]): unknown };
  evaluation: { run(...params: unknown[]): unknown };
  tag: { run(...params: unknown[]): unknown };
}

// Prepared once per connection; the handle outlives every transaction on it.
const caseStatements = new WeakMap<SqliteHandle, CaseStatements>();

function statementsFor(sqlite: SqliteHandle): CaseStatements {
  let s = caseStatements.get(sqlite);
  if (!s) {
    s = {
      result: sqlite.prepare(insertSql('case_results', CASE_RESULT_COLUMNS)),
      evaluation: sqlite.prepare(
        insertSql('case_evaluations', [
          'experiment_id',
          'test_id',
          'repeat',
          'idx',
          'evaluator',
          'score',
          'passed',
          'error',
        ]),
      ),
      tag: sqlite.prepare(insertSql('case_tags', ['experiment_id', 'test_id', 'repeat', 'tag', 'passed'])),
    };
    caseStatements.set(sqlite, s);
  }
  return s;
}

/** Thrown when a path holds no run (no journal, no experiment JSON). */
export class RunNotFoundError extends Error {
  readonly code = 'AEH_ERR_RUN_NOT_FOUND';
  override name = 'RunNotFoundError';
  constructor(readonly path: string) {
    super(
      `no run at ${path}: expected a run folder (journal.jsonl or experiment.json), a journal or an experiment JSON`,
    );
  }
}

export interface IndexOutcome {
  id: string;
  location: string;
  state: string;
  /** Results written by this call. */
  results: number;
  /** Journal lines that were not valid records and were skipped. */
  malformed: number;
  /** True when only the journal's new tail was read. */
  incremental: boolean;
  /** True when the index already matched the files and nothing was read. */
  unchanged: boolean;
}

const RESULT_BATCH = 400;
const CHILD_BATCH = 2000;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function headerRow(codec: JsonCodec, header: ExperimentHeader, location: string) {
  return {
    id: header.id,
    name: codec.text(header.name),
    suite_name: codec.text(header.suite.name),
    suite_version: codec.text(header.suite.version),
    suite_hash: header.suite.content_hash,
    agent_adapter: codec.text(header.agent.adapter),
    agent_label: codec.textOrNull(header.agent.label),
    agent_version: codec.textOrNull(header.agent.version),
    state: header.state,
    started_at: header.started_at,
    finished_at: header.finished_at,
    location,
    thresholds_passed: header.thresholds ? (header.thresholds.passed ? 1 : 0) : null,
    git_commit: header.environment.git_commit,
    tool_version: header.environment.tool_version,
    header: codec.encode(header),
    indexed_at: new Date().toISOString(),
  };
}

async function deleteExperimentRows(db: Db, id: string): Promise<void> {
  await db.deleteFrom('case_tags').where('experiment_id', '=', id).execute();
  await db.deleteFrom('case_evaluations').where('experiment_id', '=', id).execute();
  await db.deleteFrom('case_results').where('experiment_id', '=', id).execute();
  await db.deleteFrom('metric_values').where('experiment_id', '=', id).execute();
  await db.deleteFrom('experiments').where('id', '=', id).execute();
}

/** A result with its sort position (suite index when the journal has it, else order of appearance). */
interface Positioned {
  result: TestCaseResult;
  seq: number;
}

async function deleteCaseKeys(db: Db, id: string, results: readonly TestCaseResult[]): Promise<void> {
  if (results.length === 0) return;
  // Row-value IN over a VALUES list: portable (SQLite needs a subquery on the right) and index-friendly.
  // The CAST keeps PostgreSQL from typing the repeat parameters as text.
  const keys = sql.join(results.map((r) => sql`(${r.test_id}, cast(${r.repeat} as integer))`));
  for (const table of ['case_tags', 'case_evaluations', 'case_results'] as const) {
    await db
      .deleteFrom(table)
      .where('experiment_id', '=', id)
      .where(sql<boolean>`(test_id, ${sql.ref('repeat')}) in (values ${keys})`)
      .execute();
  }
}

/** The case_results row of a result (the same values whichever way it is inserted). */
function caseRow(codec: JsonCodec, id: string, r: TestCaseResult, seq: number) {
  return {
    experiment_id: id,
    test_id: codec.text(r.test_id),
    repeat: r.repeat,
    seq,
    test_name: codec.text(r.test_name),
    status: r.status,
    score: r.score,
    duration: r.duration,
    attempts: r.attempts,
    cost: r.output.cost,
    input_tokens: r.output.usage?.input_tokens ?? null,
    output_tokens: r.output.usage?.output_tokens ?? null,
    error: codec.textOrNull(r.output.error),
    started_at: r.started_at ?? null,
    finished_at: r.finished_at ?? null,
    result: codec.encode(r),
  };
}

async function insertResults(
  db: Db,
  codec: JsonCodec,
  id: string,
  positioned: readonly Positioned[],
  sqlite?: SqliteHandle,
): Promise<void> {
  if (positioned.length === 0) return;
  const results = positioned.map((p) => p.result);
  if (sqlite) {
    // Same rows, same order as the Kysely path below; `db` is a transaction on this very connection.
    const st = statementsFor(sqlite);
    for (const { result: r, seq } of positioned) {
      const row = caseRow(codec, id, r, seq);
      st.result.run(...CASE_RESULT_COLUMNS.map((c) => row[c] ?? null));
    }
    for (const r of results) {
      const testId = codec.text(r.test_id);
      r.evaluations.forEach((e, idx) => {
        st.evaluation.run(
          id,
          testId,
          r.repeat,
          idx,
          codec.text(e.evaluator),
          e.score,
          e.passed ? 1 : 0,
          e.error ? 1 : 0,
        );
      });
    }
    for (const r of results) {
      const testId = codec.text(r.test_id);
      for (const tag of new Set(r.tags))
        st.tag.run(id, testId, r.repeat, codec.text(tag), r.status === 'passed' ? 1 : 0);
    }
    return;
  }
  await db
    .insertInto('case_results')
    .values(positioned.map(({ result: r, seq }) => caseRow(codec, id, r, seq)))
    .execute();
  const evaluations = results.flatMap((r) =>
    r.evaluations.map((e, idx) => ({
      experiment_id: id,
      test_id: codec.text(r.test_id),
      repeat: r.repeat,
      idx,
      evaluator: codec.text(e.evaluator),
      score: e.score,
      passed: e.passed ? 1 : 0,
      error: e.error ? 1 : 0,
    })),
  );
  for (const part of chunks(evaluations, CHILD_BATCH)) await db.insertInto('case_evaluations').values(part).execute();
  const tags = results.flatMap((r) =>
    [...new Set(r.tags)].map((tag) => ({
      experiment_id: id,
      test_id: codec.text(r.test_id),
      repeat: r.repeat,
      tag: codec.text(tag),
      passed: r.status === 'passed' ? 1 : 0,
    })),
  );
  for (const part of chunks(tags, CHILD_BATCH)) await db.insertInto('case_tags').values(part).execute();
}

/**
 * PostgreSQL plans from table statistics that a fresh bulk load does not have yet (autovacuum analyzes
 * later, asynchronously); without them the case grid's filtered queries pick poor plans. SQLite's planner
 * needs no statistics for these queries.
 */
async function analyzeAfterBulk(ctx: StoreContext, written: number): Promise<void> {
  if (ctx.codec.dialect !== 'postgres' || written < 5000) return;
  await sql`analyze case_results, case_evaluations, case_tags`.execute(ctx.db);
}

/** Keep the last result per key within a batch (the journal's "last wins" rule). */
function lastPerKey(items: readonly Positioned[]): Positioned[] {
  const byKey = new Map<string, Positioned>();
  for (const p of items) {
    const key = resultKey(p.result);
    byKey.delete(key);
    byKey.set(key, p);
  }
  return [...byKey.values()];
}

async function writeMetrics(
  db: Db,
  codec: JsonCodec,
  id: string,
  metrics: Record<string, MetricResult>,
): Promise<void> {
  await db.deleteFrom('metric_values').where('experiment_id', '=', id).execute();
  const rows = Object.entries(metrics)
    .filter(([, m]) => Number.isFinite(m.value))
    .map(([key, m]) => ({
      experiment_id: id,
      name: codec.text(key),
      value: m.value,
      formatted_value: codec.text(m.formatted_value),
      direction: m.direction,
      lower: m.interval?.lower ?? null,
      upper: m.interval?.upper ?? null,
      level: m.interval?.level ?? null,
      sample_size: m.sample_size ?? null,
      error: codec.textOrNull(m.error),
    }));
  for (const part of chunks(rows, 500)) await db.insertInto('metric_values').values(part).execute();
}

/** Recompute the run's counters from its case rows (correct under duplicates and partial runs). */
async function refreshCounters(db: Db, id: string): Promise<void> {
  const agg = await db
    .selectFrom('case_results')
    .where('experiment_id', '=', id)
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      sql<number>`coalesce(sum(case when status = 'passed' then 1 else 0 end), 0)`.as('passed'),
      sql<number>`coalesce(sum(case when status = 'failed' then 1 else 0 end), 0)`.as('failed'),
      sql<number>`coalesce(sum(case when status = 'error' then 1 else 0 end), 0)`.as('errored'),
      sql<number>`coalesce(sum(case when status = 'skipped' then 1 else 0 end), 0)`.as('skipped'),
      sql<number | null>`avg(case when status <> 'skipped' then score end)`.as('mean_score'),
      sql<number | null>`sum(cost)`.as('total_cost'),
      sql<number>`coalesce(sum(duration), 0)`.as('total_duration'),
    ])
    .executeTakeFirstOrThrow();
  await db
    .updateTable('experiments')
    .set({
      total: Number(agg.total),
      passed: Number(agg.passed),
      failed: Number(agg.failed),
      errored: Number(agg.errored),
      skipped: Number(agg.skipped),
      mean_score: agg.mean_score === null ? null : Number(agg.mean_score),
      total_cost: agg.total_cost === null ? null : Number(agg.total_cost),
      total_duration: Number(agg.total_duration),
      // Every write ends here, so indexed_at tells watchers (the viewer) that a run changed.
      indexed_at: new Date().toISOString(),
    })
    .where('id', '=', id)
    .execute();
}

interface EndInfo {
  state: string;
  finished_at?: string | null | undefined;
  metrics?: Record<string, MetricResult> | undefined;
  thresholds?: ThresholdOutcome | null | undefined;
}

async function applyEnd(db: Db, codec: JsonCodec, id: string, header: ExperimentHeader, end: EndInfo): Promise<void> {
  const merged: ExperimentHeader = {
    ...header,
    state: end.state as ExperimentHeader['state'],
    finished_at: end.finished_at ?? header.finished_at,
    metrics: end.metrics ?? header.metrics,
    thresholds: end.thresholds === undefined ? header.thresholds : end.thresholds,
  };
  await db
    .updateTable('experiments')
    .set({
      state: merged.state,
      finished_at: merged.finished_at,
      thresholds_passed: merged.thresholds ? (merged.thresholds.passed ? 1 : 0) : null,
      header: codec.encode(merged),
    })
    .where('id', '=', id)
    .execute();
  await writeMetrics(db, codec, id, merged.metrics);
}

async function indexExperimentFile(ctx: StoreContext, source: RunSource, file: string): Promise<IndexOutcome> {
  const experiment = await readExperimentFile(file);
  const { results, ...header } = experiment;
  const unique = lastPerKey(results.map((result, seq) => ({ result, seq })));
  await ctx.db.transaction().execute(async (trx) => {
    await deleteExperimentRows(trx, header.id);
    await trx
      .insertInto('experiments')
      .values(headerRow(ctx.codec, header, source.location))
      .execute();
    for (const part of chunks(unique, RESULT_BATCH)) await insertResults(trx, ctx.codec, header.id, part, ctx.sqlite);
    await writeMetrics(trx, ctx.codec, header.id, header.metrics);
    await refreshCounters(trx, header.id);
  });
  await analyzeAfterBulk(ctx, unique.length);
  return {
    id: header.id,
    location: source.location,
    state: header.state,
    results: unique.length,
    malformed: 0,
    incremental: false,
    unchanged: false,
  };
}

async function indexJournalFull(ctx: StoreContext, source: RunSource, journal: string): Promise<IndexOutcome> {
  const { db, codec } = ctx;
  let header: ExperimentHeader | null = null;
  let end: EndInfo | null = null;
  let written = 0;
  let malformed = 0;
  let offset = 0;
  const seen = new Set<string>();
  let appearance = 0;
  await db.transaction().execute(async (trx) => {
    for await (const chunk of readJournal(journal)) {
      malformed += chunk.malformed;
      offset = chunk.offset;
      let pending: Positioned[] = [];
      const flush = async () => {
        if (!header || pending.length === 0) return;
        const unique = lastPerKey(pending);
        await deleteCaseKeys(
          trx,
          header.id,
          unique.filter((p) => seen.has(resultKey(p.result))).map((p) => p.result),
        );
        for (const p of unique) seen.add(resultKey(p.result));
        await insertResults(trx, codec, header.id, unique, ctx.sqlite);
        written += unique.length;
        pending = [];
      };
      for (const entry of chunk.entries) {
        if (entry.type === 'header') {
          if (header) continue; // a resumed run may repeat its header; the first one names the run
          header = entry.header;
          await deleteExperimentRows(trx, header.id);
          await trx
            .insertInto('experiments')
            .values(headerRow(codec, header, source.location))
            .execute();
        } else if (entry.type === 'result') {
          if (header) pending.push({ result: entry.result, seq: entry.index ?? appearance });
          else malformed++;
          appearance++;
        } else if (entry.type === 'end') {
          end = entry.end;
        }
      }
      await flush();
    }
    if (!header) return;
    const h: ExperimentHeader = header;
    let finalEnd: EndInfo | null = end;
    if (finalEnd && !finalEnd.metrics && source.experiment) {
      const exp = await readExperimentFile(source.experiment).catch(() => null);
      if (exp && exp.id === h.id) finalEnd = { ...finalEnd, metrics: exp.metrics, thresholds: exp.thresholds };
    }
    if (finalEnd) await applyEnd(trx, codec, h.id, h, finalEnd);
    await trx.updateTable('experiments').set({ journal_offset: offset }).where('id', '=', h.id).execute();
    await refreshCounters(trx, h.id);
  });
  await analyzeAfterBulk(ctx, written);
  if (!header) {
    // A journal without a header: fall back to the experiment file, else it is not (yet) a run.
    if (source.experiment) return indexExperimentFile(ctx, source, source.experiment);
    throw new Error(`${journal}: the journal has no header record`);
  }
  const h: ExperimentHeader = header;
  const state = (end as EndInfo | null)?.state ?? h.state;
  return {
    id: h.id,
    location: source.location,
    state,
    results: written,
    malformed,
    incremental: false,
    unchanged: false,
  };
}

async function indexJournalTail(
  ctx: StoreContext,
  source: RunSource,
  journal: string,
  row: { id: string; journal_offset: number; header: ExperimentHeader; state: string },
): Promise<IndexOutcome> {
  const { db, codec } = ctx;
  let written = 0;
  let malformed = 0;
  let state = row.state;
  let restart = false;
  await db.transaction().execute(async (trx) => {
    const max = await trx
      .selectFrom('case_results')
      .where('experiment_id', '=', row.id)
      .select((eb) => eb.fn.max<number | null>('seq').as('m'))
      .executeTakeFirst();
    let seq = max?.m === null || max?.m === undefined ? 0 : Number(max.m) + 1;
    let offset = row.journal_offset;
    for await (const chunk of readJournal(journal, { from: row.journal_offset, live: true })) {
      malformed += chunk.malformed;
      offset = chunk.offset;
      const results: Positioned[] = [];
      for (const entry of chunk.entries) {
        if (entry.type === 'result') results.push({ result: entry.result, seq: entry.index ?? seq++ });
        else if (entry.type === 'end') {
          state = entry.end.state;
          await applyEnd(trx, codec, row.id, row.header, entry.end);
        } else if (entry.type === 'header' && entry.header.id !== row.id) {
          restart = true; // the journal was replaced by another run
        }
      }
      if (restart) return;
      const unique = lastPerKey(results);
      await deleteCaseKeys(
        trx,
        row.id,
        unique.map((p) => p.result),
      );
      await insertResults(trx, codec, row.id, unique, ctx.sqlite);
      written += unique.length;
    }
    await trx
      .updateTable('experiments')
      .set({ journal_offset: offset, indexed_at: new Date().toISOString() })
      .where('id', '=', row.id)
      .execute();
    await refreshCounters(trx, row.id);
  });
  if (restart) return indexJournalFull(ctx, source, journal);
  // Only a half-written (or, for a killed writer, truncated) last line: nothing new yet.
  const unchanged = written === 0 && malformed === 0 && state === row.state;
  return { id: row.id, location: source.location, state, results: written, malformed, incremental: true, unchanged };
}

export interface IndexRunOptions {
  /** Read only what was appended to the journal since the last index (default true). */
  incremental?: boolean;
}

/**
 * Index one run (a run folder, a journal or an experiment JSON). Re-indexing is idempotent; with a
 * live journal only the new tail is read.
 */
export async function indexRun(ctx: StoreContext, path: string, options: IndexRunOptions = {}): Promise<IndexOutcome> {
  const source = locateRun(path);
  if (!source) throw new RunNotFoundError(path);
  if (!source.journal) return indexExperimentFile(ctx, source, source.experiment as string);
  const journal = source.journal;
  if (options.incremental !== false) {
    const row = await ctx.db
      .selectFrom('experiments')
      .where('location', '=', source.location)
      .select(['id', 'journal_offset', 'header', 'state'])
      .orderBy('indexed_at', 'desc')
      .executeTakeFirst();
    if (row) {
      const size = statSync(journal).size;
      const indexed = Number(row.journal_offset);
      if (indexed > 0 && size === indexed) {
        return {
          id: row.id,
          location: source.location,
          state: row.state,
          results: 0,
          malformed: 0,
          incremental: true,
          unchanged: true,
        };
      }
      if (indexed > 0 && size > indexed) {
        const header = ctx.codec.decode<ExperimentHeader>(row.header);
        return indexJournalTail(ctx, source, journal, {
          id: row.id,
          journal_offset: indexed,
          header,
          state: row.state,
        });
      }
    }
  }
  return indexJournalFull(ctx, source, journal);
}

/** How far below the runs folder run folders are looked for, and how many folders at most are opened. */
export const RUN_SEARCH_LIMITS = { depth: 6, folders: 20_000 } as const;

/**
 * Run folders (those holding a journal or an experiment JSON) at any depth under a runs folder, in path order:
 * `runs/demo/baseline` as well as `runs/2026...-suite`. A run folder is not searched further. Symbolic links
 * are never followed (a link to `/` or a cycle cannot send the walk elsewhere); hidden folders and
 * node_modules are skipped; the walk stops at `limits.depth` levels and `limits.folders` folders opened.
 */
export function listRunFolders(
  runsDir: string,
  limits: { depth: number; folders: number } = RUN_SEARCH_LIMITS,
): string[] {
  const found: string[] = [];
  let opened = 0;
  const walk = (dir: string, depth: number): void => {
    if (opened >= limits.folders) return;
    opened++;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      // Dirent.isDirectory() is false for a symlink to a folder: links are skipped without a stat.
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (locateRun(p) !== null) found.push(p);
      else if (depth < limits.depth) walk(p, depth + 1);
    }
  };
  walk(resolve(runsDir), 1);
  return found;
}

export interface SyncOutcome {
  indexed: IndexOutcome[];
  unchanged: number;
  errors: { location: string; message: string }[];
}

/** Bring the index up to date with the run folders under `runsDir` (new folders, grown journals). */
export async function syncIndex(ctx: StoreContext, runsDir: string): Promise<SyncOutcome> {
  const out: SyncOutcome = { indexed: [], unchanged: 0, errors: [] };
  const known = new Map<string, number>();
  const rows = await ctx.db.selectFrom('experiments').select(['location', 'journal_offset']).execute();
  for (const r of rows) if (r.location) known.set(r.location, Number(r.journal_offset));
  for (const folder of listRunFolders(runsDir)) {
    const source = locateRun(folder);
    if (!source) continue;
    const offset = known.get(source.location);
    if (offset !== undefined && (!source.journal || statSync(source.journal).size === offset)) {
      out.unchanged++;
      continue;
    }
    try {
      const r = await indexRun(ctx, folder);
      if (r.unchanged) out.unchanged++;
      else out.indexed.push(r);
    } catch (err) {
      out.errors.push({ location: folder, message: errorMessage(err) });
    }
  }
  return out;
}

export interface RebuildOptions {
  /** Drop every entry, including runs indexed from other folders (default: only those under runsDir). */
  all?: boolean;
}

/** Rebuild the index from the run folders: entries under `runsDir` are dropped and re-read. */
export async function rebuildIndex(
  ctx: StoreContext,
  runsDir: string,
  options: RebuildOptions = {},
): Promise<SyncOutcome> {
  const root = resolve(runsDir);
  const rows = await ctx.db.selectFrom('experiments').select(['id', 'location']).execute();
  const drop = rows.filter(
    (r) => options.all || (r.location !== null && (r.location === root || r.location.startsWith(root + sep))),
  );
  for (const r of drop) {
    await ctx.db.transaction().execute((trx) => deleteExperimentRows(trx, r.id));
  }
  const out: SyncOutcome = { indexed: [], unchanged: 0, errors: [] };
  for (const folder of listRunFolders(root)) {
    try {
      out.indexed.push(await indexRun(ctx, folder, { incremental: false }));
    } catch (err) {
      out.errors.push({ location: folder, message: errorMessage(err) });
    }
  }
  return out;
}

/** Remove a run from the index (its files are untouched). */
export async function removeFromIndex(ctx: StoreContext, id: string): Promise<void> {
  await ctx.db.transaction().execute((trx) => deleteExperimentRows(trx, id));
}
