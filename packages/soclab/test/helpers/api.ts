import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResponseCheck, responseChecker } from '../../../harness/test/helpers/openapi-check.js';
import { loadServerConfig, type ServerConfigInput } from '../../src/api/config.js';
import { type ApiServer, createApiServer } from '../../src/api/server.js';

/** Tokens of the test servers: one per role, plus an approver whose identity is the agent's delegated user. */
export const TOKENS = {
  viewer: 'viewer-token-0123456789abcdef',
  operator: 'operator-token-0123456789abcdef',
  approver: 'approver-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
  delegate: 'delegate-token-0123456789abcdef',
} as const;
export type TokenName = keyof typeof TOKENS;

export const TOKEN_CONFIG: ServerConfigInput['tokens'] = [
  { name: 'viewer', role: 'viewer', token: TOKENS.viewer },
  { name: 'ops', role: 'operator', token: TOKENS.operator },
  { name: 'soc-lead', role: 'approver', token: TOKENS.approver },
  { name: 'admin', role: 'admin', token: TOKENS.admin },
  // The orchestrator's delegated user: may approve in general, never its own agent's actions.
  { name: 'analyst-1', role: 'approver', token: TOKENS.delegate },
];

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

/** A real server on 127.0.0.1 and an ephemeral port, with its own data folder (unless given). */
export async function startServer(
  overrides: Partial<ServerConfigInput> = {},
  options: { env?: NodeJS.ProcessEnv; webRoot?: string | null } = {},
): Promise<ApiServer & { base: string }> {
  const config = loadServerConfig({
    env: {},
    overrides: {
      host: '127.0.0.1',
      port: 0,
      data_dir: tempDir('soclab-api-'),
      tokens: TOKEN_CONFIG,
      campaign_concurrency: 2,
      ...overrides,
    },
  });
  const server = await createApiServer({
    config,
    env: options.env ?? {},
    webRoot: options.webRoot === undefined ? null : options.webRoot,
    notice: () => undefined,
  });
  const base = await server.listen();
  return Object.assign(server, { base });
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are untyped JSON, read field by field and asserted on
export type Json = any;

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A JSON call as `who` (or without a token). */
export async function call<T = Json>(
  base: string,
  method: string,
  path: string,
  options: { as?: TokenName | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.as) headers.authorization = `Bearer ${TOKENS[options.as]}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  await checkAgainstOpenApi(base, method, path, res, parsed);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

const contracts = new Map<string, Promise<ResponseCheck>>();

/**
 * Every API response a test receives is validated against the server's own OpenAPI document: the route's
 * declared statuses, content types and response schema (so the document cannot drift from behaviour). The
 * console's pages and static files are not part of the API and are not checked.
 */
async function checkAgainstOpenApi(base: string, method: string, path: string, res: Response, body: unknown) {
  const pathname = new URL(path, 'http://x').pathname;
  if (!pathname.startsWith('/api/') && pathname !== '/health') return;
  if (pathname === '/api/openapi.json' || pathname.startsWith('/api/docs')) return;
  let contract = contracts.get(base);
  if (!contract) {
    contract = fetch(`${base}/api/openapi.json`)
      .then((r) => r.json())
      .then((doc) => responseChecker(doc as Record<string, unknown>, { notFoundSchema: 'Error' }));
    contracts.set(base, contract);
  }
  (await contract).check(method, pathname, res.status, res.headers.get('content-type'), body);
}

/** Poll until `probe` returns a value (not undefined), up to `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Wait for a campaign to reach completed or failed and return its final view. */
export async function finished(base: string, campaignId: string, timeoutMs?: number): Promise<Json> {
  return until(
    async () => {
      const r = await call(base, 'GET', `/api/v1/campaigns/${campaignId}`, { as: 'viewer' });
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
    },
    `campaign ${campaignId} to finish`,
    timeoutMs,
  );
}

/** A run's chain as the API replays it. */
export const eventsOf = async (base: string, runId: string): Promise<Json[]> =>
  (await call(base, 'GET', `/api/v1/runs/${runId}/events`, { as: 'viewer' })).body;

/** No canary secret in any form the redactor knows (literal, base64 or hex of the prefix). */
export function expectNoCanary(text: string): void {
  const literal = /CANARY-SECRET-[A-Za-z0-9_-]+/;
  const b64 = Buffer.from('CANARY-SECRE').toString('base64');
  const hex = Buffer.from('CANARY-SECRET-').toString('hex');
  if (literal.test(text) || text.includes(b64) || text.toLowerCase().includes(hex)) {
    throw new Error(`a canary secret leaked: ${text.slice(0, 200)}`);
  }
}

/** Chromium for the PDF route: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export const CHROMIUM: string | undefined =
  process.env.CHROMIUM_PATH || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
