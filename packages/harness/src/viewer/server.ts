import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ExperimentComparison } from '../comparison/models.js';
import { errorCode, errorMessage, UNCLASSIFIED_ERROR_CODE } from '../core/errors.js';
import type { CaseStatus } from '../core/result.js';
import { firstZodIssue } from '../core/zod-issues.js';
import { RunLookupError } from '../store/queries.js';
import type { RunStore } from '../store/run-store.js';
import type { CaseDelta, CaseDeltaCounts, Page, RunSummary } from '../store/types.js';
import { pageOfDeltas } from './compare-page.js';
import { type LiveEvent, LiveIndexer } from './live.js';

export interface ViewerOptions {
  store: RunStore;
  /** Folder of run folders, watched for new and growing runs. */
  runsDir: string;
  /** Runs outside runsDir (already indexed) to keep up to date. */
  runs?: readonly string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 7600; 0 picks a free port. */
  port?: number;
  /** Folder of the built web app (default: the package's dist/web). */
  webRoot?: string;
  /** Poll journals for live updates (default true). */
  watch?: boolean;
  pollIntervalMs?: number;
}

export interface Viewer {
  readonly app: FastifyInstance;
  readonly url: string;
  /** True when the web bundle was found (the API works either way). */
  readonly hasWebApp: boolean;
  close(): Promise<void>;
}

export const DEFAULT_VIEWER_PORT = 7600;
const MAX_PARAM_LENGTH = 1000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Where the built SPA lives: next to the compiled server (dist/viewer -> dist/web), or the package's dist when run from source. */
export function findWebRoot(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'web'), join(here, '..', '..', 'dist', 'web')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/**
 * The stable codes of the viewer's own JSON errors (docs/errors.md); a harness error that reaches a response keeps
 * its own code (an unknown run id answers `AEH_ERR_RUN_LOOKUP`).
 */
const VIEWER_ERROR_CODES = {
  badRequest: 'AEH_ERR_VIEWER_BAD_REQUEST',
  host: 'AEH_ERR_VIEWER_HOST',
  notFound: 'AEH_ERR_VIEWER_NOT_FOUND',
} as const;

/** A path the router cannot read, as a 400 with the viewer's error body. */
function answerUnreadablePath(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'path: not valid percent-encoded UTF-8'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
        : `request: ${error.message}`;
  reply.code(400).send({ error: message, code: VIEWER_ERROR_CODES.badRequest });
}

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new HttpError(400, `${where}.${firstZodIssue(r.error)}`, VIEWER_ERROR_CODES.badRequest);
}

const intParam = (dflt: number, max: number) => z.coerce.number().int().min(0).max(max).default(dflt);
/** `a,b,c` in a query string as a list of enum values. */
function listOf<const V extends readonly [string, ...string[]]>(values: V) {
  return z
    .string()
    .optional()
    .transform((s) => (s ? s.split(',').filter(Boolean) : undefined))
    .pipe(z.array(z.enum(values)).optional());
}

const RunsQuery = z.object({
  suite: z.string().optional(),
  state: z.string().optional(),
  offset: intParam(0, 1e9),
  limit: intParam(50, 1000),
});
const CasesQuery = z.object({
  status: listOf(['passed', 'failed', 'error', 'skipped'] as const satisfies readonly CaseStatus[]),
  tag: z.string().optional(),
  evaluator: z.string().optional(),
  evaluator_passed: z.enum(['true', 'false']).optional(),
  q: z.string().max(200).optional(),
  sort: z.enum(['seq', 'score', '-score', 'duration', '-duration', 'test_id']).optional(),
  offset: intParam(0, 1e9),
  limit: intParam(50, 500),
});
const CASE_CHANGES = [
  'regressed',
  'fixed',
  'still_failing',
  'still_passing',
  'only_baseline',
  'only_candidate',
] as const;
const CompareQuery = z.object({ baseline: z.string().min(1), candidate: z.string().min(1) });
const CompareCasesQuery = CompareQuery.extend({
  change: listOf(CASE_CHANGES),
  q: z.string().max(200).optional(),
  offset: intParam(0, 1e9),
  limit: intParam(50, 500),
});
const HistoryQuery = z.object({
  metric: z.string().default('success_rate'),
  limit: intParam(50, 10_000),
  agent: z.string().optional(),
});
const FlakyQuery = z.object({ window: intParam(20, 1000), min_runs: intParam(3, 1000), agent: z.string().optional() });

/** The comparison page's payload: both runs, the comparator's statistics and per-case counts. */
export interface ComparePayload {
  baseline: RunSummary;
  candidate: RunSummary;
  comparison: ExperimentComparison | null;
  comparison_error: string | null;
  counts: CaseDeltaCounts;
}

/**
 * Start the local viewer: a JSON API over the run index (server-side paging and filtering), the built
 * React app, and server-sent events while runs are in progress. Binds 127.0.0.1 unless told otherwise.
 *
 * @example
 * const viewer = await startViewer({ store: await openStore(), runsDir: 'runs', port: 0 });
 * console.log(viewer.url);
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const { store } = options;
  const host = options.host ?? '127.0.0.1';
  const webRoot = options.webRoot ?? findWebRoot();
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (bad percent-encoding) get the viewer's error body and code (docs/errors.md),
    // not Fastify's, which carried another shape and an undocumented code.
    frameworkErrors: answerUnreadablePath,
  });
  guardRequests(app, host);
  registerRunRoutes(app, store);
  registerCompareRoutes(app, store);
  const events = registerLiveEvents(app);
  await registerWebApp(app, webRoot);
  const live =
    options.watch === false
      ? null
      : new LiveIndexer({
          store,
          runsDir: options.runsDir,
          extra: options.runs,
          intervalMs: options.pollIntervalMs,
          onEvent: events.broadcast,
        });
  app.addHook('preClose', async () => {
    await live?.stop();
    events.close();
  });

  await app.listen({ host, port: options.port ?? DEFAULT_VIEWER_PORT });
  await live?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    app,
    url: `http://${shownHost}:${port}/`,
    hasWebApp: webRoot !== null,
    close: () => app.close(),
  };
}

/**
 * Every request: a loopback viewer answers only requests addressed to a loopback name (DNS-rebinding guard),
 * every response carries the security headers, and errors become JSON with their status.
 */
function guardRequests(app: FastifyInstance, host: string): void {
  const loopbackOnly = LOOPBACK.has(host);
  app.addHook('onRequest', async (req, reply) => {
    if (!loopbackOnly) return;
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK.has(hostname)) {
      reply.code(403).send({
        error: `host '${hostname}' not allowed; the viewer answers on 127.0.0.1/localhost only`,
        code: VIEWER_ERROR_CODES.host,
      });
    }
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header(
      'content-security-policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    );
    return payload;
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err instanceof HttpError) return reply.code(err.statusCode).send({ error: err.message, code: err.code });
    if (err instanceof RunLookupError) {
      return reply.code(404).send({ error: err.message, code: err.code, candidates: err.candidates });
    }
    // A harness error keeps its code; Fastify's own 4xx (a malformed URL or body) are bad requests.
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    const code = errorCode(err) ?? (status === 500 ? UNCLASSIFIED_ERROR_CODE : VIEWER_ERROR_CODES.badRequest);
    return reply.code(status).send({ error: status === 500 ? `internal error: ${err.message}` : err.message, code });
  });
}

/** Health, the OpenAPI description, runs and their cases, suites with their history and flaky cases. */
function registerRunRoutes(app: FastifyInstance, store: RunStore): void {
  app.get('/api/health', async () => ({ ok: true, store: store.target.display.replace(/^sqlite:.*/, 'sqlite') }));

  // The API's own description, generated from the zod schemas its responses are typed against.
  app.get('/api/openapi.json', async () => (await import('./openapi.js')).viewerOpenApi());

  app.get('/api/runs', async (req) => {
    const q = parse(RunsQuery, req.query, 'query');
    return store.listRuns(q);
  });

  app.get<{ Params: { id: string } }>('/api/runs/:id', async (req) => store.getRun(req.params.id));

  app.get<{ Params: { id: string } }>('/api/runs/:id/cases', async (req) => {
    const q = parse(CasesQuery, req.query, 'query');
    const id = await store.resolveRunId(req.params.id);
    return store.listCases(id, {
      status: q.status,
      tag: q.tag,
      evaluator: q.evaluator,
      evaluatorPassed: q.evaluator_passed === undefined ? undefined : q.evaluator_passed === 'true',
      q: q.q,
      sort: q.sort,
      offset: q.offset,
      limit: q.limit,
    });
  });

  app.get<{ Params: { id: string; testId: string; repeat: string } }>(
    '/api/runs/:id/cases/:testId/:repeat',
    async (req) => {
      const id = await store.resolveRunId(req.params.id);
      const repeat = parse(z.coerce.number().int().min(0), req.params.repeat, 'params.repeat');
      const result = await store.getCase(id, req.params.testId, repeat);
      if (!result)
        throw new HttpError(
          404,
          `run ${id} has no case '${req.params.testId}' repeat ${repeat}`,
          VIEWER_ERROR_CODES.notFound,
        );
      return result;
    },
  );

  app.get('/api/suites', async () => store.listSuites());

  app.get<{ Params: { suite: string } }>('/api/suites/:suite/history', async (req) => {
    const q = parse(HistoryQuery, req.query, 'query');
    return store.metricHistory(req.params.suite, q.metric, { limit: q.limit, agent: q.agent });
  });

  app.get<{ Params: { suite: string } }>('/api/suites/:suite/flaky', async (req) => {
    const q = parse(FlakyQuery, req.query, 'query');
    const { quarantineOfLatest } = await import('../store/suite-ref.js');
    const quarantine = await quarantineOfLatest(store, req.params.suite);
    return store.flakyCases(req.params.suite, {
      window: q.window,
      minRuns: Math.max(2, q.min_runs),
      agent: q.agent,
      quarantine,
    });
  });
}

/** The comparison of two runs and its per-case changes (filtered and paged here, over the cached deltas). */
function registerCompareRoutes(app: FastifyInstance, store: RunStore): void {
  // Comparisons read both runs in full; keep the last few, keyed by what was indexed.
  const compareCache = new Map<string, Promise<{ payload: ComparePayload; deltas: CaseDelta[] }>>();
  const compareRuns = async (baselineRef: string, candidateRef: string) => {
    const [a, b] = await Promise.all([store.getRun(baselineRef), store.getRun(candidateRef)]);
    const key = JSON.stringify([a.id, a.total, a.state, b.id, b.total, b.state]);
    let entry = compareCache.get(key);
    if (!entry) {
      entry = (async () => {
        const { counts, deltas } = await store.caseDeltas(a.id, b.id);
        let comparison: ExperimentComparison | null = null;
        let comparisonError: string | null = null;
        try {
          const { ExperimentComparator } = await import('../comparison/comparator.js');
          comparison = await ExperimentComparator.compare(await store.runView(a.id), await store.runView(b.id));
        } catch (err) {
          comparisonError = errorMessage(err);
        }
        const strip = ({ header: _h, evaluators: _e, tags: _t, ...summary }: typeof a): RunSummary => summary;
        return {
          payload: { baseline: strip(a), candidate: strip(b), comparison, comparison_error: comparisonError, counts },
          deltas,
        };
      })();
      entry.catch(() => compareCache.delete(key));
      compareCache.set(key, entry);
      while (compareCache.size > 6) compareCache.delete(compareCache.keys().next().value as string);
    }
    return entry;
  };

  app.get('/api/compare', async (req) => {
    const q = parse(CompareQuery, req.query, 'query');
    return (await compareRuns(q.baseline, q.candidate)).payload;
  });

  app.get('/api/compare/cases', async (req): Promise<Page<CaseDelta>> => {
    const q = parse(CompareCasesQuery, req.query, 'query');
    const { deltas } = await compareRuns(q.baseline, q.candidate);
    return pageOfDeltas(deltas, q);
  });
}

/** Server-sent events for live runs: `broadcast` sends one to every open stream; `close` ends them all. */
function registerLiveEvents(app: FastifyInstance): { broadcast(event: LiveEvent): void; close(): void } {
  const sse = new Set<ServerResponse>();
  app.get('/api/events', (req, reply: FastifyReply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write('retry: 2000\n\n');
    sse.add(res);
    req.raw.on('close', () => sse.delete(res));
  });
  const heartbeat = setInterval(() => {
    for (const res of sse) res.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();
  return {
    broadcast(event) {
      const data = `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
      for (const res of sse) res.write(data);
    },
    close() {
      clearInterval(heartbeat);
      for (const res of sse) res.end();
      sse.clear();
    },
  };
}

/** The built React app (client routes get index.html), and plain answers for unknown API paths or no build. */
async function registerWebApp(app: FastifyInstance, webRoot: string | null): Promise<void> {
  if (webRoot) {
    await app.register(fastifyStatic, { root: webRoot, prefix: '/', wildcard: false, index: 'index.html' });
  }
  // Unknown API paths are JSON 404s, chosen by the router, which decodes the path (`/%61pi/x` is `/api/x`); a test
  // of the raw URL served those spellings the app's index.html instead.
  app.all('/api/*', (req, reply) =>
    reply
      .code(404)
      .send({ error: `no such endpoint: ${req.method} ${req.url.split('?')[0]}`, code: VIEWER_ERROR_CODES.notFound }),
  );
  app.setNotFoundHandler((req, reply) => {
    // Client routes get the app; a missing asset (a file name) stays a 404.
    if (webRoot && req.method === 'GET' && !/\.[a-z0-9]+$/i.test(req.url.split('?')[0] as string))
      return reply.sendFile('index.html');
    return reply
      .code(webRoot ? 404 : 503)
      .type('text/plain')
      .send(
        webRoot
          ? 'not found'
          : 'The viewer web app is not built. Run `npm run build` (it builds packages/harness/web into dist/web); the JSON API under /api works meanwhile.\n',
      );
  });
}
