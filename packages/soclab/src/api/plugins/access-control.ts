import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { can, type Permission, type Principal, type TokenRegistry } from '../auth.js';
import { errorBody } from '../errors.js';

/** The caller behind a request's bearer token, looked up once per request (the rate limit asks too). */
export type PrincipalLookup = (request: Pick<FastifyRequest, 'headers' | 'raw'>) => Principal | null;

/** How many `Authorization` header lines the request carried (raw headers: Node keeps only the first). */
function authorizationLines(raw: { readonly rawHeaders?: readonly string[] }): number {
  const names = raw.rawHeaders ?? [];
  let lines = 0;
  for (let i = 0; i < names.length; i += 2) {
    if (names[i]?.toLowerCase() === 'authorization') lines += 1;
  }
  return lines;
}

/**
 * A per-request cached `registry.authenticate` of the `Authorization` header. A request with more than one
 * Authorization header has no principal: Node silently keeps the first, while a proxy in front may act on another,
 * so ambiguous credentials are refused (401) rather than one of them picked.
 */
export function principalLookup(registry: TokenRegistry): PrincipalLookup {
  const principals = new WeakMap<object, Principal | null>();
  return (request) => {
    if (!principals.has(request.raw)) {
      const single = authorizationLines(request.raw) <= 1;
      principals.set(request.raw, single ? registry.authenticate(request.headers.authorization) : null);
    }
    return principals.get(request.raw) ?? null;
  };
}

/** What the access rule of a matched route says about a caller. */
export type AccessDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly status: 401 }
  | { readonly allowed: false; readonly status: 403; readonly role: string; readonly permission: Permission };

/**
 * A route's declared rule against the caller. A route without a rule needs the admin role (deny by default);
 * only `public` routes need no token.
 */
export function decideAccess(rule: Permission | 'public' | undefined, principal: Principal | null): AccessDecision {
  if (rule === 'public') return { allowed: true };
  const permission: Permission = rule ?? 'admin';
  if (!principal) return { allowed: false, status: 401 };
  if (!can(principal, permission)) return { allowed: false, status: 403, role: principal.role, permission };
  return { allowed: true };
}

export interface AccessControlOptions {
  readonly principalOf: PrincipalLookup;
}

/**
 * Bearer-token access on every route of the server (a root-level plugin: its hook covers routes registered
 * after it, in any scope). Access is decided by the route the router matched (its `config.permission`), never
 * by testing the URL: the router decodes `/%61pi/v1/...` to the same route, so any prefix test on the raw URL
 * can be walked around. The not-found answer skips the token. The hook runs at preParsing: after the rate limit
 * (a route-level onRequest hook), so unauthenticated callers are rate limited too, and before the body is read,
 * so nobody without the permission gets a body parsed.
 *
 * @example
 *   await app.register(accessControl, { principalOf: principalLookup(new TokenRegistry(config.tokens)) });
 */
export const accessControl = fp<AccessControlOptions>(
  async (app, { principalOf }) => {
    app.decorateRequest('principal', null);
    app.addHook('preParsing', async (request, reply, payload) => {
      if (request.is404) return payload;
      const principal = principalOf(request);
      const decision = decideAccess(request.routeOptions.config?.permission, principal);
      if (decision.allowed) {
        request.principal = principal;
        return payload;
      }
      if (decision.status === 401) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="soclab"')
          .send(errorBody(401, 'unauthenticated', 'a valid bearer token is required (Authorization: Bearer <token>)'));
      }
      request.principal = principal;
      return reply
        .code(403)
        .send(
          errorBody(
            403,
            'forbidden',
            `the ${decision.role} role cannot do this (needs the '${decision.permission}' permission)`,
          ),
        );
    });
  },
  { name: 'soclab-access-control' },
);
