import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelProvider } from '@aeh/models';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import pino from 'pino';
import { z } from 'zod';
import type { AttackScenario } from '../contracts/scenarios.js';
import { ApprovalInbox, persistedProposal } from '../control/approval-inbox.js';
import { proposalHash } from '../control/grants.js';
import { loadPolicyEngine } from '../control/policy/index.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../control/redaction.js';
import { openRuns, sealInterruptedRuns } from '../evidence/interrupted.js';
import { openEvidenceStore } from '../evidence/store.js';
import { loadCorpus, type ScenarioCorpus } from '../scenarios/loader.js';
import '../modes/builtin.js';
import { checkCampaignQueue } from '../service/queue-campaign.js';
import { CampaignWorkerPool } from '../service/worker-pool.js';
import { soclabVersion } from '../version.js';
import { can, ensureGeneratedToken, type Permission, type Principal, TokenRegistry } from './auth.js';
import { CampaignService, findResumableCampaigns } from './campaigns.js';
import { isLoopback, type ServerConfig, ServerConfigError } from './config.js';
import type { ApiApp, ApiContext } from './context.js';
import { errorBody, handleError } from './errors.js';
import { registerStrictJsonParser } from './json-body.js';
import { describeRoute, finishDocument } from './openapi-routes.js';
import { RenderPool } from './render-pool.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerCampaignRoutes } from './routes/campaigns.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerRunRoutes } from './routes/runs.js';
import { ApiStore, type ApprovalRow } from './store.js';

export interface ApiServerOptions {
  config: ServerConfig;
  env?: NodeJS.ProcessEnv;
  corpus?: ScenarioCorpus;
  /** Folder of the built console (default: the package's dist/web). */
  webRoot?: string | null;
  /** Tests and embedding applications: build the model for each scenario instead of using the registry. */
  providerFactory?: (scenario: AttackScenario) => ModelProvider;
  /** Where startup notes go (default stderr). */
  notice?: (message: string) => void;
}

export interface ApiServer {
  readonly app: ApiApp;
  readonly context: ApiContext;
  /** Set once listening. */
  readonly url: string;
  /** A note for the operator when a token was generated (`<data_dir>/api-token`), else null. */
  readonly generatedTokenFile: string | null;
  /** Every registered route with the access rule it declares (null: none, so only admin may call it). */
  readonly routes: readonly RouteAccess[];
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** One registered route and its access rule, as the router sees it. */
export interface RouteAccess {
  readonly method: string;
  readonly url: string;
  readonly permission: Permission | 'public' | null;
}

/** The router's own refusals (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH) as the API's 400 error body. */
function answerUnreadablePath(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path parameter is longer than 200 characters'
      : 'the path is not valid percent-encoded UTF-8';
  reply.code(400).send(errorBody(400, 'invalid_path', message));
}

type WaitingApproval = Pick<
  ApprovalRow,
  'approval_id' | 'proposal_id' | 'tool_name' | 'arguments' | 'reason_codes' | 'requested_at' | 'run_id'
>;

/** The pending human decisions of each run, as the `waiting_for_approval` of its run.interrupted event. */
function waitingByRun(rows: readonly WaitingApproval[]): Map<string, { waiting_for_approval: object[] }> {
  const byRun = new Map<string, { waiting_for_approval: object[] }>();
  for (const r of rows) {
    const entry = byRun.get(r.run_id) ?? { waiting_for_approval: [] };
    entry.waiting_for_approval.push({
      approval_id: r.approval_id,
      proposal_id: r.proposal_id,
      tool_name: r.tool_name,
      arguments: r.arguments,
      reason_codes: r.reason_codes,
      requested_at: r.requested_at,
    });
    byRun.set(r.run_id, entry);
  }
  return byRun;
}

/** The built console: next to the compiled server (dist/api -> dist/web), or the package's dist from source. */
export function findConsoleRoot(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'web'), join(here, '..', '..', 'dist', 'web')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/**
 * `queue_url`: campaigns are coordinated here and run on `soclab worker` processes, which rebuild the lab from the
 * queued request. Refused (ServerConfigError, CLI exit 2) when Redis does not answer now, or when the campaigns
 * would use what cannot travel to a worker (an injected corpus or provider).
 */
async function checkQueueSetting(
  url: string,
  databaseUrl: string,
  options: ApiServerOptions,
  notice: (message: string) => void,
): Promise<void> {
  if (options.corpus || options.providerFactory) {
    throw new ServerConfigError(
      'queue_url: an injected scenario corpus or provider factory cannot travel to soclab workers; leave queue_url unset',
    );
  }
  if (databaseUrl === ':memory:') {
    throw new ServerConfigError(
      "queue_url: workers cannot write to this server's ':memory:' database; set database_url",
    );
  }
  try {
    await checkCampaignQueue(url, 'queue_url (SOCLAB_QUEUE_URL)');
  } catch (error) {
    throw new ServerConfigError(
      `queue_url: ${(error as Error).message.replace('(--queue redis://host:port)', '(queue_url)')}`,
    );
  }
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    notice(
      `soclab serve: campaigns run on soclab workers; their chains show here only if every worker writes to this server's SQLite file (soclab worker --db ${databaseUrl}, same machine); use PostgreSQL (database_url) for workers on other machines`,
    );
  }
}

const CONSOLE_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/**
 * Build the API server: Fastify with zod validation, OpenAPI (`/api/openapi.json`, docs at `/api/docs`), bearer
 * tokens with roles, per-token rate limits, security headers, the campaign queue, the approvals inbox and the
 * web console. Nothing listens until `listen()`.
 *
 * @example
 *   const server = await createApiServer({ config: loadServerConfig({ overrides: { port: 0 } }) });
 *   console.log(await server.listen());
 */
export async function createApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const config = options.config;
  const env = options.env ?? process.env;
  const notice = options.notice ?? ((m: string) => process.stderr.write(`${m}\n`));

  let tokens = config.tokens;
  let generatedTokenFile: string | null = null;
  if (tokens.length === 0) {
    const generated = ensureGeneratedToken(config.data_dir);
    tokens = [generated.token];
    generatedTokenFile = generated.file;
  }
  const registry = new TokenRegistry(tokens);

  const databaseUrl = config.database_url ?? join(config.data_dir, 'soclab.sqlite');
  if (config.queue_url) await checkQueueSetting(config.queue_url, databaseUrl, options, notice);
  const evidence = await openEvidenceStore(databaseUrl);
  const store = await ApiStore.open(evidence);
  // Campaigns that were waiting for a person resume when the decision comes: their chains stay open and their
  // requests pending. Runs a previous process left half-written otherwise keep their events and get a terminal
  // run.interrupted event, which names the human decision a run was waiting for (kept in the approvals table too).
  const resumable = await findResumableCampaigns(store);
  const waiting = waitingByRun(
    (await store.pendingApprovals()).filter((r) => r.campaign_id === null || !resumable.campaignIds.has(r.campaign_id)),
  );
  await store.interruptPendingApprovals(new Date().toISOString(), [...resumable.campaignIds]);
  const sealed = await sealInterruptedRuns(
    evidence,
    'the server stopped while the run was in progress',
    resumable.runIds.size > 0
      ? new Set((await openRuns(evidence)).filter((id) => !resumable.runIds.has(id)))
      : undefined,
    (runId) => waiting.get(runId),
  );
  if (sealed.length > 0) notice(`soclab serve: ${sealed.length} interrupted run(s) closed as run.interrupted`);
  const corpus = options.corpus ?? loadCorpus();
  // Compile the policy set now (cached by folder digest) rather than inside the first campaign, where its
  // synchronous load would stall every request for a moment.
  loadPolicyEngine();

  // Inbox changes are written in order (insert before settle, even on a pooled PostgreSQL connection).
  let approvalWrites: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<void>) => {
    approvalWrites = approvalWrites.then(task).catch((error) => notice(`soclab serve: approvals store: ${error}`));
  };
  // Set once the campaign service exists (the inbox is built first, and may settle restored requests only later).
  let resumeCampaign = (_campaignId: string): void => undefined;
  const inbox = new ApprovalInbox({
    timeoutSeconds: config.approval_timeout_seconds,
    // Persisted with what a restart needs to resume the run: the proposal (redacted, as the approver sees it), the
    // hash of the exact one, the seeded scope and the chain head at this point.
    onRequested: (entry) =>
      enqueue(async () => {
        const head = (await evidence.rows(entry.run_id)).at(-1);
        await store.insertApproval({
          approval_id: entry.approval_id,
          campaign_id: entry.campaign_id,
          run_id: entry.run_id,
          scenario_id: entry.scenario_id,
          proposal_id: entry.proposal.proposal_id,
          tool_name: entry.proposal.tool_name,
          arguments: redact({ ...entry.proposal.arguments }, DEFAULT_CANARY_PATTERNS),
          reason_codes: [...entry.reason_codes],
          requested_at: entry.requested_at,
          deadline: entry.deadline,
          outcome: 'pending',
          approver_id: null,
          reason: null,
          decided_at: null,
          proposal: persistedProposal(entry.proposal),
          proposal_hash: proposalHash(entry.proposal),
          scope: entry.scope ?? null,
          chain_head: head ? `${head.sequence}:${head.event_hash}` : null,
        });
      }),
    onSettled: (s) =>
      enqueue(() =>
        store.settleApproval(s.entry.approval_id, {
          outcome: s.outcome,
          approver_id: s.approver_id,
          reason: s.reason,
          decided_at: s.decided_at,
        }),
      ),
    onResumeMismatch: (entry, detail) => {
      notice(`soclab serve: approval ${entry.approval_id} not applied: ${detail}`);
      enqueue(() => store.markResumeMismatch(entry.approval_id, detail));
    },
    // The store has the decision before the campaign resumes (the resumed run is answered from the inbox).
    onResumable: (campaignId) => enqueue(async () => resumeCampaign(campaignId)),
  });

  // Worker threads open the store themselves, so they need one another process could open (not :memory:), and they
  // load the bundled corpus and the provider registry (not an injected corpus or provider factory).
  const workers =
    config.campaign_workers > 0 && databaseUrl !== ':memory:' && !options.providerFactory && !options.corpus
      ? new CampaignWorkerPool({ size: config.campaign_workers, env })
      : null;
  const campaigns = new CampaignService({
    pool: workers ? { workers, databaseUrl } : undefined,
    queueUrl: config.queue_url,
    store,
    evidence,
    inbox,
    dataDir: config.data_dir,
    maxRunning: config.max_running_campaigns,
    maxQueued: config.max_queued_campaigns,
    concurrency: config.campaign_concurrency,
    approvalTimeoutSeconds: config.approval_timeout_seconds,
    env,
    corpus,
    providerFactory: options.providerFactory,
    log: (m) => notice(`soclab serve: ${m}`),
    approvalWrites: () => approvalWrites,
  });

  const app = Fastify({
    bodyLimit: config.body_limit_bytes,
    logger: config.log ? { level: 'info', stream: pino.destination(2) } : false,
    // Never trust forwarding headers: rate limits and logs use the socket's address.
    trustProxy: false,
    routerOptions: { maxParamLength: 200 },
    // A path the router cannot read (bad percent-encoding, an over-long parameter) gets the API's error body.
    frameworkErrors: answerUnreadablePath,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  registerStrictJsonParser(app);
  app.decorateRequest('principal', null);
  // Every route as registered (HEAD twins included), read when asked so plugin scopes can still set their rule.
  const registered: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    registered.push(route as unknown as RouteOptions);
  });
  // Every route's OpenAPI entry gets its operationId and every status the shared hooks can answer (issue 18).
  app.addHook('onRoute', (route) => describeRoute(route as unknown as RouteOptions));

  const context: ApiContext = {
    config,
    evidence,
    store,
    inbox,
    campaigns,
    corpus,
    env,
    version: soclabVersion(),
    pdfPool: new RenderPool({
      concurrency: config.pdf_concurrency,
      maxWaiting: config.pdf_max_waiting,
      perKey: config.pdf_per_token,
    }),
    approvalWrites: () => approvalWrites,
  };

  // The rate limit keys on the token when it is valid (else the address); the lookup is cached per request.
  const principals = new WeakMap<object, Principal | null>();
  const principalOf = (request: { headers: { authorization?: string }; raw: object }): Principal | null => {
    if (!principals.has(request.raw)) principals.set(request.raw, registry.authenticate(request.headers.authorization));
    return principals.get(request.raw) ?? null;
  };

  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP },
    crossOriginEmbedderPolicy: false,
    hsts: isLoopback(config.host) ? false : undefined,
  });
  await app.register(fastifyRateLimit, {
    global: true,
    max: config.rate_limit.max,
    timeWindow: config.rate_limit.window_ms,
    keyGenerator: (request) => principalOf(request)?.key ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => ({
      ...errorBody(429, 'rate_limited', `too many requests: at most ${context.max} per ${context.after}`),
      statusCode: 429,
    }),
  });

  // Access is decided by the route the router matched (its `config.permission`), never by testing the URL: the
  // router decodes `/%61pi/v1/...` to the same route, so any prefix test on the raw URL can be walked around.
  // A matched route without an access rule needs the admin role (deny by default); only `public` routes and the
  // not-found answer skip the token. Runs after the rate limit (a route-level onRequest hook) and before the body
  // is read, so unauthenticated callers are rate limited too and nobody without the permission gets a body parsed.
  app.addHook('preParsing', async (request, reply, payload) => {
    if (request.is404) return payload;
    const rule = request.routeOptions.config?.permission;
    if (rule === 'public') return payload;
    const permission: Permission = rule ?? 'admin';
    const principal = principalOf(request);
    if (!principal) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="soclab"')
        .send(errorBody(401, 'unauthenticated', 'a valid bearer token is required (Authorization: Bearer <token>)'));
    }
    request.principal = principal;
    if (!can(principal, permission)) {
      return reply
        .code(403)
        .send(
          errorBody(
            403,
            'forbidden',
            `the ${principal.role} role cannot do this (needs the '${permission}' permission)`,
          ),
        );
    }
    return payload;
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'soclab API',
        version: soclabVersion(),
        description:
          'Assurance lab for AI SOC agents: start campaigns, decide escalated actions, replay and verify evidence. ' +
          'Every /api/v1 route needs `Authorization: Bearer <token>`; roles: viewer (read), operator (read, start ' +
          'campaigns), approver (read, decide approvals), admin (all).',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      tags: [
        { name: 'system' },
        { name: 'catalog' },
        { name: 'campaigns' },
        { name: 'reports' },
        { name: 'approvals' },
        { name: 'evidence' },
      ],
    },
    transform: jsonSchemaTransform,
    // Named zod schemas (the shared `Error`) become components; then servers and non-JSON routes' error bodies.
    transformObject: (document) => finishDocument(jsonSchemaTransformObject(document) as Record<string, unknown>),
  });
  app.get(
    '/api/openapi.json',
    { config: { permission: 'public', rateLimit: false }, schema: { hide: true } },
    async () => app.swagger(),
  );
  app.get(
    '/health',
    {
      config: { permission: 'public', rateLimit: false },
      schema: { tags: ['system'], summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/api/v1/health',
    {
      config: { permission: 'public', rateLimit: false },
      schema: { tags: ['system'], summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/api/v1/version',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['system'],
        summary: 'Versions of the lab and of what it runs, and who you are',
        security: [{ bearerAuth: [] }],
        response: {
          200: z.object({
            version: z.string(),
            api: z.literal('v1'),
            incident: z.object({ id: z.string(), version: z.string() }),
            scenarios: z.number().int(),
            store: z.enum(['sqlite', 'postgres']),
            you: z.object({ name: z.string(), role: z.string() }),
          }),
        },
      },
    },
    async (request) => ({
      version: soclabVersion(),
      api: 'v1' as const,
      incident: { id: corpus.incident.id, version: corpus.incident.version },
      scenarios: corpus.all.length,
      store: evidence.dialect,
      you: { name: request.principal!.name, role: request.principal!.role },
    }),
  );

  registerCatalogRoutes(app, context);
  registerCampaignRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerRunRoutes(app, context);

  const webRoot = options.webRoot === undefined ? findConsoleRoot() : options.webRoot;
  // Files anyone may fetch: the API docs page and the built console. Their routes come from plugins, so this
  // scope marks them public explicitly. The console's files are registered one route each (no wildcard): a path
  // that is not one of them reaches the API's own 404, never the static handler.
  await app.register(async (assets) => {
    assets.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), permission: route.config?.permission ?? 'public' };
    });
    await assets.register(fastifySwaggerUi, {
      routePrefix: '/api/docs',
      // Swagger UI's own policy, without upgrade-insecure-requests (the server is plain HTTP on loopback).
      staticCSP:
        "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'none'; img-src 'self' data:; " +
        "object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'",
      uiConfig: { docExpansion: 'list', deepLinking: false },
    });
    if (webRoot) {
      await assets.register(fastifyStatic, { root: webRoot, prefix: '/', index: 'index.html', wildcard: false });
    }
  });
  if (!webRoot) {
    app.get('/', { config: { permission: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send('soclab API. The web console is not built (npm run build). API docs: /api/docs\n'),
    );
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const shown = path.length > 120 ? `${path.slice(0, 120)}...` : path;
    return reply.code(404).send(errorBody(404, 'not_found', `no route ${request.method} ${shown}`));
  });

  resumeCampaign = (campaignId) => campaigns.resume(campaignId);
  await campaigns.recover(resumable);
  if (resumable.campaignIds.size > 0) {
    notice(
      `soclab serve: ${resumable.campaignIds.size} campaign(s) waiting for an approval kept; they resume when decided`,
    );
  }

  let url = '';
  let closed = false;
  return {
    app,
    context,
    get url() {
      return url;
    },
    generatedTokenFile,
    get routes() {
      return registered.flatMap((route) =>
        (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
          method: String(method),
          url: route.url,
          permission: route.config?.permission ?? null,
        })),
      );
    },
    async listen() {
      if (!isLoopback(config.host)) {
        notice(
          `soclab serve: listening on ${config.host} (not loopback): bearer tokens cross the network in clear ` +
            'unless a TLS proxy sits in front',
        );
      }
      const address = await app.listen({ host: config.host, port: config.port });
      url = address.replace('[::1]', '[::1]');
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      const waitingAtStop = waitingByRun(
        inbox.pending().map((e) => ({
          approval_id: e.approval_id,
          proposal_id: e.proposal.proposal_id,
          tool_name: e.proposal.tool_name,
          arguments: redact({ ...e.proposal.arguments }, DEFAULT_CANARY_PATTERNS),
          reason_codes: [...e.reason_codes],
          requested_at: e.requested_at,
          run_id: e.run_id,
        })),
      );
      await campaigns.close();
      await workers?.close();
      await app.close();
      await approvalWrites;
      // Chains of campaigns suspended while waiting for a person stay open: the next start resumes them.
      const keep = await campaigns.suspendedChains();
      await sealInterruptedRuns(
        evidence,
        'the server was stopped while the run was in progress',
        keep.size > 0 ? new Set((await openRuns(evidence)).filter((id) => !keep.has(id))) : undefined,
        (runId) => waitingAtStop.get(runId),
      );
      await evidence.close();
    },
  };
}
