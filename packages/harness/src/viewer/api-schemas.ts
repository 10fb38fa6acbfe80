import { z } from 'zod';
import { ExperimentComparison } from '../comparison/models.js';
import { Experiment } from '../core/experiment.js';
import { TestCaseResult } from '../core/result.js';
import type {
  CaseDelta,
  CaseDeltaCounts,
  CaseSummary,
  FlakyReport,
  HistoryPoint,
  RunDetail,
  RunSummary,
  StoredMetric,
  SuiteSummary,
} from '../store/types.js';

// The viewer API's response bodies as zod schemas. Each is typed against the store's interface, so a field added
// to the store without its schema fails to compile, and the OpenAPI document (./openapi.ts) is generated from
// these, so it describes what the routes really return (tests validate every response against it).

/** Every named schema of the viewer API; the OpenAPI document's `components.schemas`. */
export const viewerSchemas = z.registry<{ id: string }>();

const nullableNumber = z.number().nullable();

export const StoredMetricSchema: z.ZodType<StoredMetric> = z
  .object({
    name: z.string(),
    value: z.number(),
    formatted_value: z.string(),
    direction: z.string(),
    lower: nullableNumber,
    upper: nullableNumber,
    level: nullableNumber,
    sample_size: nullableNumber,
    error: z.string().nullable(),
  })
  .register(viewerSchemas, { id: 'StoredMetric' });

const runSummaryShape = {
  id: z.string(),
  name: z.string(),
  suite_name: z.string(),
  suite_version: z.string(),
  agent_adapter: z.string(),
  agent_label: z.string().nullable(),
  agent_version: z.string().nullable(),
  state: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  location: z.string().nullable(),
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errored: z.number().int(),
  skipped: z.number().int(),
  pass_rate: nullableNumber,
  idle_seconds: nullableNumber,
  mean_score: nullableNumber,
  total_cost: nullableNumber,
  total_duration: z.number(),
  thresholds_passed: z.boolean().nullable(),
  git_commit: z.string().nullable(),
  metrics: z.record(z.string(), StoredMetricSchema),
};

export const RunSummarySchema: z.ZodType<RunSummary> = z
  .object(runSummaryShape)
  .register(viewerSchemas, { id: 'RunSummary' });

export const RunDetailSchema: z.ZodType<RunDetail> = z
  .object({
    ...runSummaryShape,
    header: Experiment.omit({ results: true }),
    evaluators: z.array(
      z.object({
        evaluator: z.string(),
        cases: z.number().int(),
        passed: z.number().int(),
        errors: z.number().int(),
        mean_score: z.number(),
      }),
    ),
    tags: z.array(z.object({ tag: z.string(), cases: z.number().int(), passed: z.number().int() })),
  })
  .register(viewerSchemas, { id: 'RunDetail' }) as unknown as z.ZodType<RunDetail>;

export const CaseSummarySchema: z.ZodType<CaseSummary> = z
  .object({
    test_id: z.string(),
    repeat: z.number().int(),
    test_name: z.string(),
    status: z.enum(['passed', 'failed', 'error', 'skipped']),
    score: z.number(),
    duration: z.number(),
    attempts: z.number().int(),
    cost: nullableNumber,
    error: z.string().nullable(),
    tags: z.array(z.string()),
    evaluations: z.array(
      z.object({ evaluator: z.string(), score: z.number(), passed: z.boolean(), error: z.boolean() }),
    ),
    output_preview: z.string(),
  })
  .register(viewerSchemas, { id: 'CaseSummary' });

/** A page of `item`s (server-side paging). */
export const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({ total: z.number().int(), offset: z.number().int(), limit: z.number().int(), items: z.array(item) })
    .register(viewerSchemas, { id });

export const SuiteSummarySchema: z.ZodType<SuiteSummary> = z
  .object({ suite_name: z.string(), runs: z.number().int(), last_started_at: z.string(), metrics: z.array(z.string()) })
  .register(viewerSchemas, { id: 'SuiteSummary' });

export const HistoryPointSchema: z.ZodType<HistoryPoint> = z
  .object({
    id: z.string(),
    name: z.string(),
    started_at: z.string(),
    state: z.string(),
    agent_label: z.string().nullable(),
    agent_version: z.string().nullable(),
    git_commit: z.string().nullable(),
    value: z.number(),
    formatted_value: z.string(),
    direction: z.string(),
    lower: nullableNumber,
    upper: nullableNumber,
    sample_size: nullableNumber,
  })
  .register(viewerSchemas, { id: 'HistoryPoint' });

export const FlakyReportSchema: z.ZodType<FlakyReport> = z
  .object({
    suite_name: z.string(),
    runs_considered: z.number().int(),
    cases_considered: z.number().int(),
    flaky: z.array(
      z.object({
        test_id: z.string(),
        test_name: z.string(),
        runs: z.number().int(),
        executions: z.number().int(),
        passes: z.number().int(),
        pass_rate: z.number(),
        flips: z.number().int(),
        flip_rate: z.number(),
        mixed_runs: z.number().int(),
        history: z.array(
          z.object({
            id: z.string(),
            started_at: z.string(),
            outcome: z.enum(['pass', 'fail', 'mixed']),
            passes: z.number().int(),
            executions: z.number().int(),
          }),
        ),
        quarantined: z.boolean(),
      }),
    ),
  })
  .register(viewerSchemas, { id: 'FlakyReport' });

const side = z.object({ pass_rate: z.number(), score: z.number(), duration: z.number(), executions: z.number().int() });
export const CaseDeltaSchema: z.ZodType<CaseDelta> = z
  .object({
    test_id: z.string(),
    test_name: z.string(),
    change: z.enum(['regressed', 'fixed', 'still_failing', 'still_passing', 'only_baseline', 'only_candidate']),
    baseline: side.nullable(),
    candidate: side.nullable(),
    score_delta: nullableNumber,
    duration_delta: nullableNumber,
  })
  .register(viewerSchemas, { id: 'CaseDelta' });

const CaseDeltaCountsSchema: z.ZodType<CaseDeltaCounts> = z.object({
  regressed: z.number().int(),
  fixed: z.number().int(),
  still_failing: z.number().int(),
  still_passing: z.number().int(),
  only_baseline: z.number().int(),
  only_candidate: z.number().int(),
});

export const ComparePayloadSchema = z
  .object({
    baseline: RunSummarySchema,
    candidate: RunSummarySchema,
    comparison: ExperimentComparison.nullable(),
    comparison_error: z.string().nullable(),
    counts: CaseDeltaCountsSchema,
  })
  .register(viewerSchemas, { id: 'ComparePayload' });

export const HealthSchema = z
  .object({ ok: z.literal(true), store: z.string() })
  .register(viewerSchemas, { id: 'Health' });

/**
 * Every error the viewer answers: a message, its stable `AEH_ERR_*` code (docs/errors.md), and for an ambiguous or
 * unknown run id the closest run ids.
 */
export const ViewerErrorSchema = z
  .object({
    error: z.string(),
    code: z.string().regex(/^AEH_ERR_[A-Z0-9_]+$/),
    candidates: z.array(z.string()).optional(),
  })
  .register(viewerSchemas, { id: 'Error' });

export const CaseResultSchema = TestCaseResult.register(viewerSchemas, { id: 'CaseResult' });
export const RunPageSchema = pageOf(RunSummarySchema, 'RunPage');
export const CasePageSchema = pageOf(CaseSummarySchema, 'CasePage');
export const CaseDeltaPageSchema = pageOf(CaseDeltaSchema, 'CaseDeltaPage');
export const SuiteListSchema = z.array(SuiteSummarySchema).register(viewerSchemas, { id: 'SuiteList' });
export const HistorySchema = z.array(HistoryPointSchema).register(viewerSchemas, { id: 'History' });
