import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelProvider } from '@aeh/models';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import pino from 'pino';
import type { AttackScenario } from '../contracts/scenarios.js';
import { ApprovalInbox, persistedProposal } from '../control/approval-inbox.js';
import { proposalHash } from '../control/grants.js';
import { loadPolicyEngine } from '../control/policy/index.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../control/redaction.js';
import { openRuns, sealInterruptedRuns } from '../evidence/interrupted.js';
import { openEvidenceStore, type SqlEvidenceStore } from '../evidence/store.js';
import { loadCorpus, type ScenarioCorpus } from '../scenarios/loader.js';
import '../modes/builtin.js';
import { errorMessage } from '@aeh/harness/errors';
import { checkCampaignQueue } from '../service/queue-campaign.js';
import { CampaignWorkerPool } from '../service/worker-pool.js';
import { soclabVersion } from '../version.js';
import { ensureGeneratedToken, type Permission, TokenRegistry } from './auth.js';
import { CampaignService, findResumableCampaigns, type ResumableCampaigns } from './campaigns.js';
import { isLoopback, type ServerConfig, ServerConfigError } from './config.js';
import type { ApiApp, ApiContext } from './context.js';
import { errorBody, handleError } from './errors.js';
import { registerStrictJsonParser } from './json-body.js';
import { accessControl, principalLookup } from './plugins/access-control.js';
import { webConsole } from './plugins/console.js';
import { openApi } from './plugins/openapi.js';
import { rateLimit } from './plugins/rate-limit.js';
import { securityHeaders } from './plugins/security-headers.js';
import { systemRoutes } from './plugins/system-routes.js';
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
      `queue_url: ${errorMessage(error).replace('(--queue redis://host:port)', '(queue_url)')}`,
    );
  }
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    notice(
      `soclab serve: campaigns run on soclab workers; their chains show here only if every worker writes to this server's SQLite file (soclab worker --db ${databaseUrl}, same machine); use PostgreSQL (database_url) for workers on other machines`,
    );
  }
}

/**
 * Build the API server: Fastify with zod validation, OpenAPI (`/api/openapi.json`, docs at `/api/docs`), bearer
 * tokens with roles, per-token rate limits, security headers, the campaign queue, the approvals inbox and the
 * web console. Nothing listens until `listen()`. A thin root: it opens the store and the campaign service, then
 * registers one plugin each (`plugins/`) for security headers, the rate limit, access control, OpenAPI, the
 * system routes and the console, with the domain routes (`routes/`) between them.
 *
 * @example
 *   const server = await createApiServer({ config: loadServerConfig({ overrides: { port: 0 } }) });
 *   console.log(await server.listen());
 */
export async function createApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const config = options.config;
  const env = options.env ?? process.env;
  const notice = options.notice ?? ((m: string) => process.stderr.write(`${m}\n`));
  const { registry, generatedTokenFile } = apiTokens(config);

  const databaseUrl = config.database_url ?? join(config.data_dir, 'soclab.sqlite');
  if (config.queue_url) await checkQueueSetting(config.queue_url, databaseUrl, options, notice);
  const evidence = await openEvidenceStore(databaseUrl);
  const store = await ApiStore.open(evidence);
  const resumable = await closeInterruptedRuns(evidence, store, notice);
  const corpus = options.corpus ?? loadCorpus();
  // Compile the policy set now (cached by folder digest) rather than inside the first campaign, where its
  // synchronous load would stall every request for a moment.
  loadPolicyEngine();

  const approvals = approvalsInbox(config, evidence, store, notice);
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
    inbox: approvals.inbox,
    dataDir: config.data_dir,
    maxRunning: config.max_running_campaigns,
    maxQueued: config.max_queued_campaigns,
    concurrency: config.campaign_concurrency,
    approvalTimeoutSeconds: config.approval_timeout_seconds,
    env,
    corpus,
    providerFactory: options.providerFactory,
    log: (m) => notice(`soclab serve: ${m}`),
    approvalWrites: approvals.written,
  });
  const context: ApiContext = {
    config,
    evidence,
    store,
    inbox: approvals.inbox,
    campaigns,
    corpus,
    env,
    version: soclabVersion(),
    pdfPool: new RenderPool({
      concurrency: config.pdf_concurrency,
      maxWaiting: config.pdf_max_waiting,
      perKey: config.pdf_per_token,
    }),
    approvalWrites: approvals.written,
  };

  const { app, registered } = baseApp(config);
  // The order is the order of the hooks on every request: security headers, the rate limit (onRequest), then the
  // access decision on the matched route (preParsing); each route registered after them gets all three.
  const principalOf = principalLookup(registry);
  await app.register(securityHeaders, { host: config.host });
  await app.register(rateLimit, {
    max: config.rate_limit.max,
    windowMs: config.rate_limit.window_ms,
    principalOf,
  });
  await app.register(accessControl, { principalOf });
  await app.register(openApi, { version: context.version });
  await app.register(systemRoutes, { version: context.version, corpus, storeDialect: evidence.dialect });
  registerCatalogRoutes(app, context);
  registerCampaignRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerRunRoutes(app, context);
  await app.register(webConsole, {
    webRoot: options.webRoot === undefined ? findConsoleRoot() : options.webRoot,
  });
  app.setNotFoundHandler(answerNotFound);

  approvals.resumeWith((campaignId) => campaigns.resume(campaignId));
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
      return routeAccessOf(registered);
    },
    async listen() {
      if (!isLoopback(config.host)) {
        notice(
          `soclab serve: listening on ${config.host} (not loopback): bearer tokens cross the network in clear ` +
            'unless a TLS proxy sits in front',
        );
      }
      url = await app.listen({ host: config.host, port: config.port });
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      await stopServer({ app, campaigns, workers, evidence, inbox: approvals.inbox, written: approvals.written });
    },
  };
}

/** The configured tokens, or (none configured) the admin token kept in `<data_dir>/api-token`. */
function apiTokens(config: ServerConfig): { registry: TokenRegistry; generatedTokenFile: string | null } {
  if (config.tokens.length > 0) return { registry: new TokenRegistry(config.tokens), generatedTokenFile: null };
  const generated = ensureGeneratedToken(config.data_dir);
  return { registry: new TokenRegistry([generated.token]), generatedTokenFile: generated.file };
}

/**
 * Start-up recovery of the store. Campaigns that were waiting for a person resume when the decision comes: their
 * chains stay open and their requests pending (returned). Runs a previous process left half-written otherwise
 * keep their events and get a terminal run.interrupted event, which names the human decision a run was waiting
 * for (kept in the approvals table too).
 */
async function closeInterruptedRuns(
  evidence: SqlEvidenceStore,
  store: ApiStore,
  notice: (message: string) => void,
): Promise<ResumableCampaigns> {
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
  return resumable;
}

/** The approvals inbox, persisting every change in order, and how to wait for those writes. */
interface PersistedInbox {
  readonly inbox: ApprovalInbox;
  /** Resolves when every inbox write queued so far is in the database. */
  written(): Promise<void>;
  /** Who resumes a campaign once a restored request is decided (set when the campaign service exists). */
  resumeWith(resume: (campaignId: string) => void): void;
}

/**
 * The approvals inbox with its store writes. Changes are written in order (insert before settle, even on a
 * pooled PostgreSQL connection); a failed write is reported, not thrown into the run waiting for the decision.
 */
function approvalsInbox(
  config: ServerConfig,
  evidence: SqlEvidenceStore,
  store: ApiStore,
  notice: (message: string) => void,
): PersistedInbox {
  let writes: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<void>) => {
    writes = writes.then(task).catch((error) => notice(`soclab serve: approvals store: ${error}`));
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
  return {
    inbox,
    written: () => writes,
    resumeWith: (resume) => {
      resumeCampaign = resume;
    },
  };
}

/**
 * Fastify with zod validation and serialization, the API's error bodies (also for paths the router cannot
 * read), the strict JSON parser, and a record of every route as registered (HEAD twins included), read when
 * asked so plugin scopes can still set their rule.
 */
function baseApp(config: ServerConfig): { app: ApiApp; registered: RouteOptions[] } {
  const app = Fastify({
    bodyLimit: config.body_limit_bytes,
    logger: config.log ? { level: 'info', stream: pino.destination(2), serializers: { req: loggedRequest } } : false,
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
  const registered: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    registered.push(route as unknown as RouteOptions);
  });
  return { app, registered };
}

/**
 * What the request log records of a request: method, path and the peer, never headers and never the query string.
 * A caller that puts its token in the URL (`?access_token=...`, which is refused) must not get it written to the
 * log; Fastify's default serializer logs the whole URL and the Host header.
 */
function loggedRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url.split('?')[0],
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Every registered route with its access rule, one entry per method. */
export function routeAccessOf(registered: readonly RouteOptions[]): RouteAccess[] {
  return registered.flatMap((route) =>
    (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
      method: String(method),
      url: route.url,
      permission: route.config?.permission ?? null,
    })),
  );
}

/** No route matched: the API's 404 body, naming the method and the (shortened) path without its query. */
function answerNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? '';
  const shown = path.length > 120 ? `${path.slice(0, 120)}...` : path;
  return reply.code(404).send(errorBody(404, 'not_found', `no route ${request.method} ${shown}`));
}

/**
 * Stop in an order that loses nothing: campaigns first (suspending those waiting for a person), then the worker
 * threads and the listener, then the inbox writes; the chains of runs still open are closed as run.interrupted,
 * except those of campaigns suspended while waiting for a person, which the next start resumes.
 */
async function stopServer(parts: {
  app: ApiApp;
  campaigns: CampaignService;
  workers: CampaignWorkerPool | null;
  evidence: SqlEvidenceStore;
  inbox: ApprovalInbox;
  written: () => Promise<void>;
}): Promise<void> {
  const { app, campaigns, workers, evidence, inbox } = parts;
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
  await parts.written();
  const keep = await campaigns.suspendedChains();
  await sealInterruptedRuns(
    evidence,
    'the server was stopped while the run was in progress',
    keep.size > 0 ? new Set((await openRuns(evidence)).filter((id) => !keep.has(id))) : undefined,
    (runId) => waitingAtStop.get(runId),
  );
  await evidence.close();
}
