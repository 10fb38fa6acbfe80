import { z } from 'zod';
import { viewerSchemas } from './api-schemas.js';

type Json = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(id) } },
});
const error = (description: string) => json('Error', description);
const query = (name: string, schema: Json, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});
const path = (name: string, description: string, schema: Json = { type: 'string' }) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
const integer = (minimum: number, maximum: number, dflt: number) => ({
  type: 'integer',
  minimum,
  maximum,
  default: dflt,
});
const paging = (max: number) => [
  query('offset', integer(0, 1e9, 0), 'items to skip'),
  query('limit', integer(0, max, 50), 'items per page'),
];

/** Responses every route can give besides its success: a bad parameter, a non-loopback Host, a server fault. */
const common = {
  '400': error('a query or path parameter is invalid (the message names it)'),
  '403': error('the Host header is not a loopback name (DNS-rebinding guard of a loopback viewer)'),
  '500': error('internal error'),
};
const runNotFound = { '404': error('no run matches the id or prefix; `candidates` lists the closest run ids') };

/** One route: what the API tests validate each response against (see test/integration/viewer). */
function op(operationId: string, summary: string, ok: Json, extra: Json = {}, parameters: Json[] = []): Json {
  return { operationId, summary, parameters, responses: { '200': ok, ...common, ...extra } };
}

/**
 * The viewer API's OpenAPI 3.1 document, generated from the zod schemas the routes' bodies are typed against
 * (api-schemas.ts). Served at `GET /api/openapi.json`. The viewer has no authentication: it binds loopback by
 * default, and every operation is public (`security: []`).
 */
export function viewerOpenApi(serverUrl = '/'): Json {
  const { schemas } = z.toJSONSchema(viewerSchemas, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  const runId = path('id', 'run id, or a unique prefix of one');
  return {
    openapi: '3.1.0',
    info: {
      title: 'harness viewer API',
      version: '1',
      description: 'Read-only JSON API over the run index, used by the local web viewer (`harness view`).',
    },
    servers: [{ url: serverUrl }],
    security: [],
    paths: {
      '/api/health': { get: op('getHealth', 'Liveness and the kind of run index', json('Health', 'the viewer is up')) },
      '/api/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': {} } } },
        },
      },
      '/api/runs': {
        get: op('listRuns', 'Runs, newest first', json('RunPage', 'a page of runs'), {}, [
          query('suite', { type: 'string' }, 'only runs of this suite'),
          query('state', { type: 'string' }, 'only runs in this state (running, completed, cancelled, failed)'),
          ...paging(1000),
        ]),
      },
      '/api/runs/{id}': {
        get: op(
          'getRun',
          'One run with its header, evaluator and tag statistics',
          json('RunDetail', 'the run'),
          runNotFound,
          [runId],
        ),
      },
      '/api/runs/{id}/cases': {
        get: op(
          'listCases',
          "A run's cases, filtered and sorted on the server",
          json('CasePage', 'a page of cases'),
          runNotFound,
          [
            runId,
            query('status', { type: 'string' }, 'comma-separated statuses: passed, failed, error, skipped'),
            query('tag', { type: 'string' }, 'only cases with this tag'),
            query('evaluator', { type: 'string' }, 'only cases this evaluator scored'),
            query('evaluator_passed', { type: 'string', enum: ['true', 'false'] }, 'with evaluator: passed or not'),
            query('q', { type: 'string', maxLength: 200 }, 'substring of the case id or name'),
            query(
              'sort',
              { type: 'string', enum: ['seq', 'score', '-score', 'duration', '-duration', 'test_id'] },
              'order',
            ),
            ...paging(500),
          ],
        ),
      },
      '/api/runs/{id}/cases/{testId}/{repeat}': {
        get: op(
          'getCase',
          'One case x repeat in full',
          json('CaseResult', 'the stored result'),
          { '404': error('no such run, or the run has no such case and repeat') },
          [runId, path('testId', 'case id'), path('repeat', '0-based repeat', { type: 'integer', minimum: 0 })],
        ),
      },
      '/api/suites': { get: op('listSuites', 'Suites in the index', json('SuiteList', 'every suite')) },
      '/api/suites/{suite}/history': {
        get: op('getMetricHistory', "A metric across a suite's runs", json('History', 'one point per run'), {}, [
          path('suite', 'suite name'),
          query('metric', { type: 'string', default: 'success_rate' }, 'metric name'),
          query('limit', integer(0, 10_000, 50), 'most recent runs'),
          query('agent', { type: 'string' }, 'only runs of this agent label or version'),
        ]),
      },
      '/api/suites/{suite}/flaky': {
        get: op(
          'getFlakyCases',
          "Cases whose outcome flips across a suite's recent runs",
          json('FlakyReport', 'the report'),
          {},
          [
            path('suite', 'suite name'),
            query('window', integer(0, 1000, 20), 'most recent runs considered'),
            query('min_runs', integer(0, 1000, 3), 'runs a case needs to be judged'),
            query('agent', { type: 'string' }, 'only runs of this agent label or version'),
          ],
        ),
      },
      '/api/compare': {
        get: op(
          'compareRuns',
          'Two runs compared (statistics and per-case counts)',
          json('ComparePayload', 'the comparison'),
          runNotFound,
          [
            query('baseline', { type: 'string', minLength: 1 }, 'baseline run id or prefix', true),
            query('candidate', { type: 'string', minLength: 1 }, 'candidate run id or prefix', true),
          ],
        ),
      },
      '/api/compare/cases': {
        get: op(
          'compareCases',
          'Per-case changes between two runs',
          json('CaseDeltaPage', 'a page of case changes'),
          runNotFound,
          [
            query('baseline', { type: 'string', minLength: 1 }, 'baseline run id or prefix', true),
            query('candidate', { type: 'string', minLength: 1 }, 'candidate run id or prefix', true),
            query(
              'change',
              { type: 'string' },
              'comma-separated: regressed, fixed, still_failing, still_passing, only_baseline, only_candidate',
            ),
            query('q', { type: 'string', maxLength: 200 }, 'substring of the case id or name'),
            ...paging(500),
          ],
        ),
      },
      '/api/events': {
        get: {
          operationId: 'streamEvents',
          summary: 'Server-sent events while runs are indexed (run.updated, ...)',
          responses: {
            '200': { description: 'an event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            '403': common['403'],
          },
        },
      },
    },
    components: { schemas },
  };
}
