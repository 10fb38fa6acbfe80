import type { RouteOptions } from 'fastify';
import { ErrorBody } from './schemas.js';

type RouteConfig = { permission?: string; rateLimit?: unknown } | undefined;

/**
 * `GET /api/v1/campaigns/:id/reports/:audience/json` -> `getCampaignsByIdReportsByAudienceJson`; a route outside
 * `/api/v1` keeps its prefix apart (`GET /health` -> `getRootHealth`), so the two health routes differ.
 */
export function operationIdOf(method: string, url: string): string {
  const inApi = url.startsWith('/api/v1/');
  const words = (inApi ? url.slice('/api/v1'.length) : `/root${url}`)
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith(':') ? `by_${s.slice(1)}` : s))
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1));
  return `${method.toLowerCase()}${words.join('') || 'Root'}`;
}

/**
 * Completes a route's OpenAPI description where it is registered, so no route can be documented with less than
 * it does: an `operationId`, `security: []` on public routes, and every error status the server's shared hooks
 * can answer with, all with the one error body (`ErrorBody`, component `Error`): 401 and (for permissions a viewer
 * lacks) 403 from the access hook, 422 for a parameter, query or body that fails validation, 400/413/415 for a
 * body the parser rejects, 404 for a path with an id, 429 from the rate limit, 500.
 */
export function describeRoute(route: RouteOptions): void {
  const method = String(Array.isArray(route.method) ? route.method[0] : route.method).toUpperCase();
  if (method === 'HEAD') return;
  route.schema ??= {};
  const schema = route.schema as Record<string, unknown>;
  if (schema.hide) return;
  schema.operationId ??= operationIdOf(method, route.url);
  const config = route.config as RouteConfig;
  const isPublic = config?.permission === 'public';
  if (isPublic) schema.security = [];
  schema.response ??= {};
  const response = schema.response as Record<string, unknown>;
  const add = (status: number) => {
    response[status] ??= ErrorBody;
  };
  if (schema.body) for (const status of [400, 413, 415]) add(status);
  if (schema.body || schema.querystring || schema.params) add(422);
  if (schema.params) add(404);
  if (!isPublic) {
    add(401);
    if (config?.permission !== 'read') add(403);
  }
  if (config?.rateLimit !== false) add(429);
  add(500);
}

type Json = Record<string, unknown>;

/**
 * Final touches on the generated document: `servers`, and for routes whose success is not JSON (HTML and PDF
 * reports, declared with `produces`) their error responses declared as `application/json`, which is what the
 * error handler really sends.
 */
export function finishDocument(doc: Json): Json {
  doc.servers = [{ url: '/', description: 'this server (the API is served under /api/v1)' }];
  for (const ops of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(ops)) {
      const responses = (op.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        const content = response.content as Record<string, Json> | undefined;
        if (!content || 'application/json' in content) continue;
        const schema = Object.values(content)[0]?.schema;
        response.content = { 'application/json': schema ? { schema } : {} };
      }
    }
  }
  return doc;
}
