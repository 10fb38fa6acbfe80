import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Selectable, sql } from 'kysely';
import type { CaseStatus, TestCaseResult } from '../core/result.js';
import type { ExperimentView } from '../core/view.js';
import type { StoreContext } from './indexer.js';
import type { ExperimentHeader } from './run-files.js';
import type { ExperimentsTable } from './schema.js';
import type {
  CaseDelta,
  CaseDeltaCounts,
  CaseFilter,
  CaseSummary,
  FlakyCase,
  FlakyOptions,
  FlakyReport,
  HistoryPoint,
  Page,
  RunDetail,
  RunOutcome,
  RunSummary,
  StoredMetric,
  SuiteSummary,
} from './types.js';

/** Thrown when a run reference matches nothing, or more than one run. */
export class RunLookupError extends Error {
  readonly code = 'AEH_ERR_RUN_LOOKUP';
  override name = 'RunLookupError';
  constructor(
    message: string,
    readonly ref: string,
    readonly candidates: readonly string[] = [],
  ) {
    super(message);
  }
}

const SUMMARY_COLUMNS = [
  'id',
  'name',
  'suite_name',
  'suite_version',
  'agent_adapter',
  'agent_label',
  'agent_version',
  'state',
  'started_at',
  'finished_at',
  'location',
  'total',
  'passed',
  'failed',
  'errored',
  'skipped',
  'mean_score',
  'total_cost',
  'total_duration',
  'thresholds_passed',
  'git_commit',
] as const;

type SummaryRow = Pick<Selectable<ExperimentsTable>, (typeof SUMMARY_COLUMNS)[number]>;

function toSummary(row: SummaryRow, metrics: Record<string, StoredMetric>): RunSummary {
  const total = Number(row.total);
  const skipped = Number(row.skipped);
  const passed = Number(row.passed);
  const ran = total - skipped;
  return {
    ...row,
    total,
    passed,
    failed: Number(row.failed),
    errored: Number(row.errored),
    skipped,
    pass_rate: ran > 0 ? passed / ran : null,
    idle_seconds: row.state === 'running' ? idleSeconds(row.location) : null,
    mean_score: row.mean_score === null ? null : Number(row.mean_score),
    total_cost: row.total_cost === null ? null : Number(row.total_cost),
    total_duration: Number(row.total_duration),
    thresholds_passed: row.thresholds_passed === null ? null : Number(row.thresholds_passed) === 1,
    metrics,
  };
}

function idleSeconds(location: string | null): number | null {
  if (!location) return null;
  for (const file of [join(location, 'journal.jsonl'), location]) {
    try {
      const st = statSync(file);
      if (st.isFile()) return Math.max(0, Math.round((Date.now() - st.mtimeMs) / 1000));
    } catch {
      // not on this machine
    }
  }
  return null;
}

async function metricsFor(
  ctx: StoreContext,
  ids: readonly string[],
): Promise<Map<string, Record<string, StoredMetric>>> {
  const out = new Map<string, Record<string, StoredMetric>>();
  if (ids.length === 0) return out;
  const rows = await ctx.db
    .selectFrom('metric_values')
    .where('experiment_id', 'in', ids)
    .selectAll()
    .orderBy('name')
    .execute();
  for (const r of rows) {
    const m = out.get(r.experiment_id) ?? {};
    m[r.name] = {
      name: r.name,
      value: Number(r.value),
      formatted_value: r.formatted_value,
      direction: r.direction,
      lower: r.lower === null ? null : Number(r.lower),
      upper: r.upper === null ? null : Number(r.upper),
      level: r.level === null ? null : Number(r.level),
      sample_size: r.sample_size === null ? null : Number(r.sample_size),
      error: r.error,
    };
    out.set(r.experiment_id, m);
  }
  return out;
}

export interface ListRunsOptions {
  suite?: string | undefined;
  state?: string | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** Runs, newest first. */
export async function listRuns(ctx: StoreContext, options: ListRunsOptions = {}): Promise<Page<RunSummary>> {
  const limit = clampLimit(options.limit, 50, 1000);
  const offset = Math.max(0, options.offset ?? 0);
  let q = ctx.db.selectFrom('experiments');
  if (options.suite) q = q.where('suite_name', '=', options.suite);
  if (options.state) q = q.where('state', '=', options.state);
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .select([...SUMMARY_COLUMNS])
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const metrics = await metricsFor(
    ctx,
    rows.map((r) => r.id),
  );
  return { total: Number(total.n), offset, limit, items: rows.map((r) => toSummary(r, metrics.get(r.id) ?? {})) };
}

/**
 * Find a run by id, unique id prefix, run folder path or folder name. Throws RunLookupError naming the
 * candidates when the reference is ambiguous.
 */
export async function resolveRunId(ctx: StoreContext, ref: string): Promise<string> {
  const exact = await ctx.db.selectFrom('experiments').where('id', '=', ref).select('id').executeTakeFirst();
  if (exact) return exact.id;
  // A path to a run folder or file is matched by its absolute location.
  const trimmed = existsSync(ref) ? resolve(ref) : ref.replace(/[/\\]+$/, '');
  const pattern = likePattern(trimmed);
  const rows = await ctx.db
    .selectFrom('experiments')
    .where((eb) =>
      eb.or([
        sql<boolean>`id like ${`${pattern}%`} escape '\\'`,
        eb('location', '=', trimmed),
        sql<boolean>`location like ${`%/${pattern}%`} escape '\\'`,
        sql<boolean>`location like ${`%\\\\${pattern}%`} escape '\\'`,
      ]),
    )
    .select(['id', 'location'])
    .limit(500)
    .execute();
  const inFolder = (loc: string | null) =>
    loc !== null && (loc === trimmed || loc.endsWith(`/${trimmed}`) || loc.endsWith(`\\${trimmed}`));
  const byLocation = rows.filter((r) => inFolder(r.location));
  // Otherwise: an id prefix, or a prefix of the run folder's name (`harness runs show 20261130-0813`).
  const folderName = (loc: string | null) => (loc ?? '').split(/[/\\]/).pop() ?? '';
  const byPrefix = rows.filter((r) => r.id.startsWith(trimmed) || folderName(r.location).startsWith(trimmed));
  const matches = byLocation.length === 1 ? byLocation : byPrefix;
  const [onlyMatch] = matches;
  if (onlyMatch && matches.length === 1) return onlyMatch.id;
  if (matches.length === 0) throw new RunLookupError(`no stored run matches '${ref}'`, ref);
  throw new RunLookupError(
    `'${ref}' matches ${matches.length} runs: ${matches.map((r) => r.id).join(', ')}; give more of the id`,
    ref,
    matches.map((r) => r.id),
  );
}

/** Everything the run page and `harness runs show` need about one run. */
export async function getRun(ctx: StoreContext, ref: string): Promise<RunDetail> {
  const id = await resolveRunId(ctx, ref);
  const row = await ctx.db
    .selectFrom('experiments')
    .where('id', '=', id)
    .select([...SUMMARY_COLUMNS, 'header'])
    .executeTakeFirstOrThrow();
  const metrics = await metricsFor(ctx, [id]);
  const evaluators = await ctx.db
    .selectFrom('case_evaluations')
    .where('experiment_id', '=', id)
    .groupBy('evaluator')
    .select((eb) => [
      'evaluator',
      eb.fn.countAll<number>().as('cases'),
      eb.fn.sum<number>('passed').as('passed'),
      eb.fn.sum<number>('error').as('errors'),
      eb.fn.avg<number>('score').as('mean_score'),
    ])
    .orderBy('evaluator')
    .execute();
  const tags = await ctx.db
    .selectFrom('case_tags')
    .where('experiment_id', '=', id)
    .groupBy('tag')
    .select((eb) => ['tag', eb.fn.countAll<number>().as('cases'), eb.fn.sum<number>('passed').as('passed')])
    .orderBy('tag')
    .execute();
  const { header, ...summary } = row;
  return {
    ...toSummary(summary, metrics.get(id) ?? {}),
    header: ctx.codec.decode<ExperimentHeader>(header),
    evaluators: evaluators.map((e) => ({
      evaluator: e.evaluator,
      cases: Number(e.cases),
      passed: Number(e.passed),
      errors: Number(e.errors),
      mean_score: Number(e.mean_score),
    })),
    tags: tags.map((t) => ({ tag: t.tag, cases: Number(t.cases), passed: Number(t.passed) })),
  };
}

/** Escape LIKE wildcards; queries pair it with `escape '\\'`, which SQLite and PostgreSQL both accept. */
function likePattern(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function clampLimit(limit: number | undefined, dflt: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return dflt;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

function previewOf(result: TestCaseResult, max = 240): string {
  const text = typeof result.output.output === 'string' ? result.output.output : JSON.stringify(result.output.output);
  const shown = result.output.error && !text ? `error: ${result.output.error}` : text;
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}

/** A page of a run's cases, filtered and sorted in SQL. */
export async function listCases(ctx: StoreContext, runId: string, filter: CaseFilter = {}): Promise<Page<CaseSummary>> {
  const limit = clampLimit(filter.limit, 50, 500);
  const offset = Math.max(0, filter.offset ?? 0);
  let q = ctx.db.selectFrom('case_results as c').where('c.experiment_id', '=', runId);
  if (filter.status && filter.status.length > 0) q = q.where('c.status', 'in', [...filter.status]);
  // Semi-joins as IN (subquery): the set is built once, where a correlated EXISTS would probe per row.
  if (filter.tag) {
    const tag = filter.tag;
    q = q.where((eb) =>
      eb(
        eb.refTuple('c.test_id', 'c.repeat'),
        'in',
        eb
          .selectFrom('case_tags as t')
          .select(['t.test_id', 't.repeat'])
          .where('t.experiment_id', '=', runId)
          .where('t.tag', '=', tag)
          .$asTuple('test_id', 'repeat'),
      ),
    );
  }
  if (filter.evaluator) {
    const evaluator = filter.evaluator;
    const passed = filter.evaluatorPassed;
    q = q.where((eb) => {
      let sub = eb
        .selectFrom('case_evaluations as e')
        .select(['e.test_id', 'e.repeat'])
        .where('e.experiment_id', '=', runId)
        .where('e.evaluator', '=', evaluator);
      if (passed !== undefined) sub = sub.where('e.passed', '=', passed ? 1 : 0);
      return eb(eb.refTuple('c.test_id', 'c.repeat'), 'in', sub.$asTuple('test_id', 'repeat'));
    });
  }
  if (filter.q) {
    const needle = `%${likePattern(filter.q.toLowerCase())}%`;
    q = q.where((eb) =>
      eb.or([
        sql<boolean>`lower(c.test_id) like ${needle} escape '\\'`,
        sql<boolean>`lower(c.test_name) like ${needle} escape '\\'`,
      ]),
    );
  }
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  // Deferred join: page through keys only (index-covered for the default order), then fetch the JSON of
  // the rows on the page. A deep OFFSET then never reads the result documents it skips.
  let ordered = q.select(['c.test_id', 'c.repeat']);
  switch (filter.sort ?? 'seq') {
    case 'score':
      ordered = ordered.orderBy('c.score', 'asc');
      break;
    case '-score':
      ordered = ordered.orderBy('c.score', 'desc');
      break;
    case 'duration':
      ordered = ordered.orderBy('c.duration', 'asc');
      break;
    case '-duration':
      ordered = ordered.orderBy('c.duration', 'desc');
      break;
    case 'test_id':
      ordered = ordered.orderBy('c.test_id', 'asc').orderBy('c.repeat', 'asc');
      break;
  }
  const rows = await ordered
    .orderBy('c.seq', 'asc')
    .orderBy('c.test_id', 'asc')
    .orderBy('c.repeat', 'asc')
    .limit(limit)
    .offset(offset)
    .execute();
  const docs = new Map<string, unknown>();
  if (rows.length > 0) {
    const keys = sql.join(rows.map((r) => sql`(${r.test_id}, cast(${r.repeat} as integer))`));
    const found = await ctx.db
      .selectFrom('case_results')
      .where('experiment_id', '=', runId)
      .where(sql<boolean>`(test_id, ${sql.ref('repeat')}) in (values ${keys})`)
      .select(['test_id', 'repeat', 'result'])
      .execute();
    for (const f of found) docs.set(`${f.test_id}#${f.repeat}`, f.result);
  }
  const items = rows.flatMap((row): CaseSummary[] => {
    const doc = docs.get(`${row.test_id}#${row.repeat}`);
    if (doc === undefined) return []; // removed between the two reads
    const r = ctx.codec.decode<TestCaseResult>(doc);
    return [
      {
        test_id: r.test_id,
        repeat: r.repeat,
        test_name: r.test_name,
        status: r.status,
        score: r.score,
        duration: r.duration,
        attempts: r.attempts,
        cost: r.output.cost ?? null,
        error: r.output.error ?? null,
        tags: r.tags,
        evaluations: r.evaluations.map((e) => ({
          evaluator: e.evaluator,
          score: e.score,
          passed: e.passed,
          error: e.error,
        })),
        output_preview: previewOf(r),
      },
    ];
  });
  return { total: Number(total.n), offset, limit, items };
}

/** One case×repeat in full (input, output, trajectory, every evaluator's explanation). */
export async function getCase(
  ctx: StoreContext,
  runId: string,
  testId: string,
  repeat: number,
): Promise<TestCaseResult | null> {
  const row = await ctx.db
    .selectFrom('case_results')
    .where('experiment_id', '=', runId)
    .where('test_id', '=', testId)
    .where('repeat', '=', repeat)
    .select('result')
    .executeTakeFirst();
  return row ? ctx.codec.decode<TestCaseResult>(row.result) : null;
}

/** Suites with stored runs, most recently run first. */
export async function listSuites(ctx: StoreContext): Promise<SuiteSummary[]> {
  const rows = await ctx.db
    .selectFrom('experiments')
    .groupBy('suite_name')
    .select((eb) => ['suite_name', eb.fn.countAll<number>().as('runs'), eb.fn.max('started_at').as('last')])
    .orderBy('last', 'desc')
    .execute();
  const metricRows = await ctx.db
    .selectFrom('metric_values as m')
    .innerJoin('experiments as x', 'x.id', 'm.experiment_id')
    .select(['x.suite_name', 'm.name'])
    .distinct()
    .execute();
  const metrics = new Map<string, string[]>();
  for (const r of metricRows) metrics.set(r.suite_name, [...(metrics.get(r.suite_name) ?? []), r.name]);
  return rows.map((r) => ({
    suite_name: r.suite_name,
    runs: Number(r.runs),
    last_started_at: String(r.last),
    metrics: (metrics.get(r.suite_name) ?? []).sort(),
  }));
}

export interface HistoryOptions {
  /** Most recent N runs (default 50). */
  limit?: number | undefined;
  agent?: string | undefined;
}

/** A metric across a suite's runs, oldest first. */
export async function metricHistory(
  ctx: StoreContext,
  suite: string,
  metric: string,
  options: HistoryOptions = {},
): Promise<HistoryPoint[]> {
  const limit = clampLimit(options.limit, 50, 10_000);
  let q = ctx.db
    .selectFrom('metric_values as m')
    .innerJoin('experiments as x', 'x.id', 'm.experiment_id')
    .where('x.suite_name', '=', suite)
    .where('m.name', '=', metric);
  if (options.agent) {
    const agent = options.agent;
    q = q.where((eb) => eb.or([eb('x.agent_label', '=', agent), eb('x.agent_version', '=', agent)]));
  }
  const rows = await q
    .select([
      'x.id',
      'x.name',
      'x.started_at',
      'x.state',
      'x.agent_label',
      'x.agent_version',
      'x.git_commit',
      'm.value',
      'm.formatted_value',
      'm.direction',
      'm.lower',
      'm.upper',
      'm.sample_size',
    ])
    .orderBy('x.started_at', 'desc')
    .orderBy('x.id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map((r) => ({
    ...r,
    value: Number(r.value),
    lower: r.lower === null ? null : Number(r.lower),
    upper: r.upper === null ? null : Number(r.upper),
    sample_size: r.sample_size === null ? null : Number(r.sample_size),
  }));
}

/**
 * Cases whose outcome is unstable across a suite's recent runs. A run's outcome for a case folds its
 * repeats: pass (all passed), fail (none passed) or mixed. Flips count outcome changes between
 * consecutive runs. A case is flaky when its outcome changed at least twice in the window, or its repeats
 * disagreed within a run; a single change is a behaviour change (fixed or regressed), not flakiness.
 * Skipped executions are ignored.
 */
export async function flakyCases(ctx: StoreContext, suite: string, options: FlakyOptions = {}): Promise<FlakyReport> {
  const window = clampLimit(options.window, 20, 1000);
  const minRuns = Math.max(2, options.minRuns ?? 3);
  const quarantine = new Set(options.quarantine ?? []);
  let runsQ = ctx.db.selectFrom('experiments').where('suite_name', '=', suite);
  if (options.agent) {
    const agent = options.agent;
    runsQ = runsQ.where((eb) => eb.or([eb('agent_label', '=', agent), eb('agent_version', '=', agent)]));
  }
  const runs = await runsQ
    .select(['id', 'started_at'])
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(window)
    .execute();
  runs.reverse();
  const order = new Map(runs.map((r, i) => [r.id, i]));
  const runById = new Map(runs.map((r) => [r.id, r]));
  if (runs.length === 0) return { suite_name: suite, runs_considered: 0, cases_considered: 0, flaky: [] };
  const rows = await ctx.db
    .selectFrom('case_results')
    .where(
      'experiment_id',
      'in',
      runs.map((r) => r.id),
    )
    .where('status', '<>', 'skipped')
    .groupBy(['experiment_id', 'test_id'])
    .select((eb) => [
      'experiment_id',
      'test_id',
      eb.fn.max('test_name').as('test_name'),
      eb.fn.countAll<number>().as('executions'),
      sql<number>`sum(case when status = 'passed' then 1 else 0 end)`.as('passes'),
    ])
    .execute();
  const byCase = new Map<string, { name: string; history: FlakyCase['history'] }>();
  for (const r of rows) {
    const entry = byCase.get(r.test_id) ?? { name: String(r.test_name ?? ''), history: [] };
    const executions = Number(r.executions);
    const passes = Number(r.passes);
    const outcome: RunOutcome = passes === executions ? 'pass' : passes === 0 ? 'fail' : 'mixed';
    const run = runById.get(r.experiment_id);
    // The rows were selected by these runs' ids, so each has its run.
    if (!run) continue;
    entry.history.push({ id: r.experiment_id, started_at: run.started_at, outcome, passes, executions });
    byCase.set(r.test_id, entry);
  }
  const flaky: FlakyCase[] = [];
  for (const [testId, { name, history }] of byCase) {
    if (history.length < minRuns) continue;
    history.sort((a, b) => (order.get(a.id) as number) - (order.get(b.id) as number));
    let flips = 0;
    for (const [i, h] of history.entries()) {
      const previous = history[i - 1];
      if (previous && h.outcome !== previous.outcome) flips++;
    }
    const mixed = history.filter((h) => h.outcome === 'mixed').length;
    // One change of outcome is a behaviour change (a fix or a regression), not flakiness.
    if (flips < 2 && mixed === 0) continue;
    const executions = history.reduce((s, h) => s + h.executions, 0);
    const passes = history.reduce((s, h) => s + h.passes, 0);
    flaky.push({
      test_id: testId,
      test_name: name,
      runs: history.length,
      executions,
      passes,
      pass_rate: executions > 0 ? passes / executions : 0,
      flips,
      flip_rate: flips / (history.length - 1),
      mixed_runs: mixed,
      history,
      quarantined: quarantine.has(testId),
    });
  }
  flaky.sort(
    (a, b) =>
      b.flip_rate - a.flip_rate ||
      Math.abs(a.pass_rate - 0.5) - Math.abs(b.pass_rate - 0.5) ||
      b.mixed_runs - a.mixed_runs ||
      a.test_id.localeCompare(b.test_id),
  );
  return { suite_name: suite, runs_considered: runs.length, cases_considered: byCase.size, flaky };
}

interface CaseAggregate {
  test_name: string;
  executions: number;
  passes: number;
  score: number;
  duration: number;
}

async function aggregateCases(ctx: StoreContext, runId: string): Promise<Map<string, CaseAggregate>> {
  const rows = await ctx.db
    .selectFrom('case_results')
    .where('experiment_id', '=', runId)
    .where('status', '<>', 'skipped')
    .groupBy('test_id')
    .select((eb) => [
      'test_id',
      eb.fn.max('test_name').as('test_name'),
      eb.fn.countAll<number>().as('executions'),
      sql<number>`sum(case when status = 'passed' then 1 else 0 end)`.as('passes'),
      eb.fn.avg<number>('score').as('score'),
      eb.fn.avg<number>('duration').as('duration'),
    ])
    .execute();
  return new Map(
    rows.map((r) => [
      r.test_id,
      {
        test_name: String(r.test_name ?? ''),
        executions: Number(r.executions),
        passes: Number(r.passes),
        score: Number(r.score),
        duration: Number(r.duration),
      },
    ]),
  );
}

export interface CaseDeltaReport {
  counts: CaseDeltaCounts;
  deltas: CaseDelta[];
}

const CHANGE_ORDER: Record<CaseDelta['change'], number> = {
  regressed: 0,
  fixed: 1,
  still_failing: 2,
  only_baseline: 3,
  only_candidate: 4,
  still_passing: 5,
};

/**
 * Per-case deltas between two runs, regressions first. A case "passes" in a run when all its
 * non-skipped repeats passed.
 */
export async function caseDeltas(ctx: StoreContext, baselineId: string, candidateId: string): Promise<CaseDeltaReport> {
  const [base, cand] = await Promise.all([aggregateCases(ctx, baselineId), aggregateCases(ctx, candidateId)]);
  const counts: CaseDeltaCounts = {
    regressed: 0,
    fixed: 0,
    still_failing: 0,
    still_passing: 0,
    only_baseline: 0,
    only_candidate: 0,
  };
  const deltas: CaseDelta[] = [];
  const side = (a: CaseAggregate | undefined) =>
    a ? { pass_rate: a.passes / a.executions, score: a.score, duration: a.duration, executions: a.executions } : null;
  for (const id of new Set([...base.keys(), ...cand.keys()])) {
    const b = base.get(id);
    const c = cand.get(id);
    let change: CaseDelta['change'];
    if (!b) change = 'only_candidate';
    else if (!c) change = 'only_baseline';
    else {
      const bp = b.passes === b.executions;
      const cp = c.passes === c.executions;
      change = bp && cp ? 'still_passing' : bp ? 'regressed' : cp ? 'fixed' : 'still_failing';
    }
    counts[change]++;
    deltas.push({
      test_id: id,
      test_name: (c ?? b)?.test_name ?? '',
      change,
      baseline: side(b),
      candidate: side(c),
      score_delta: b && c ? c.score - b.score : null,
      duration_delta: b && c ? c.duration - b.duration : null,
    });
  }
  deltas.sort(
    (x, y) =>
      CHANGE_ORDER[x.change] - CHANGE_ORDER[y.change] ||
      Math.abs(y.score_delta ?? 0) - Math.abs(x.score_delta ?? 0) ||
      x.test_id.localeCompare(y.test_id),
  );
  return { counts, deltas };
}

export type { CaseStatus };

/**
 * Stream a run's stored results in run order, a page at a time (keyset paging, so a 100,000-case run
 * costs the same per page at the end as at the start).
 */
export async function* streamResults(
  ctx: StoreContext,
  runId: string,
  pageSize = 1000,
): AsyncGenerator<TestCaseResult> {
  let after: { seq: number; test_id: string; repeat: number } | null = null;
  for (;;) {
    let q = ctx.db.selectFrom('case_results').where('experiment_id', '=', runId);
    if (after) {
      const a = after;
      q = q.where((eb) =>
        eb.or([
          eb('seq', '>', a.seq),
          eb.and([eb('seq', '=', a.seq), eb('test_id', '>', a.test_id)]),
          eb.and([eb('seq', '=', a.seq), eb('test_id', '=', a.test_id), eb('repeat', '>', a.repeat)]),
        ]),
      );
    }
    const rows = await q
      .select(['seq', 'test_id', 'repeat', 'result'])
      .orderBy('seq')
      .orderBy('test_id')
      .orderBy('repeat')
      .limit(pageSize)
      .execute();
    for (const row of rows) yield ctx.codec.decode<TestCaseResult>(row.result);
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { seq: Number(last.seq), test_id: last.test_id, repeat: Number(last.repeat) };
  }
}

/** A stored run as reporters and the comparator read it: header plus results streamed from the index. */
export async function runView(ctx: StoreContext, ref: string): Promise<ExperimentView> {
  const id = await resolveRunId(ctx, ref);
  const row = await ctx.db.selectFrom('experiments').where('id', '=', id).select('header').executeTakeFirstOrThrow();
  const header = ctx.codec.decode<ExperimentHeader>(row.header);
  return { header, results: () => streamResults(ctx, id) };
}

/** A run's change marker: watchers compare it between polls. */
export interface RunVersion {
  id: string;
  state: string;
  total: number;
  indexed_at: string;
}

/** Runs (re)indexed at or after `since` (ISO time), by any writer. */
export async function changedSince(ctx: StoreContext, since: string): Promise<RunVersion[]> {
  const rows = await ctx.db
    .selectFrom('experiments')
    .where('indexed_at', '>=', since)
    .select(['id', 'state', 'total', 'indexed_at'])
    .execute();
  return rows.map((r) => ({ ...r, total: Number(r.total) }));
}
