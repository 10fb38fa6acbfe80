/**
 * The attack matrix of the HTTP API, derived from the server's own route table (not a hand list): every
 * registered route must declare an access rule, and each is tried without a token, with a wrong token, with each
 * role below the one it needs, and under hostile path spellings (percent-encoded letters, double slashes,
 * trailing slash, case, `%2e%2e`, `..`, encoded slash). A new route without an explicit rule fails here.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../../../src/api/auth.js';
import type { RouteAccess } from '../../../src/api/server.js';
import { startServer, TOKENS, tempDir } from '../../helpers/api.js';

type Server = Awaited<ReturnType<typeof startServer>>;
type Who = 'none' | 'wrong' | 'viewer' | 'operator' | 'approver' | 'admin';

const ROLE_TOKEN = {
  viewer: TOKENS.viewer,
  operator: TOKENS.operator,
  approver: TOKENS.approver,
  admin: TOKENS.admin,
} as const;
const ROLES = Object.keys(ROLE_TOKEN) as (keyof typeof ROLE_TOKEN)[];

/** Public routes outside the docs page and the console files: each one is a reviewed decision. */
const PUBLIC_API = new Set(['/health', '/api/v1/health', '/api/openapi.json']);

/** Well-formed values for each path parameter that name nothing stored (so no call changes anything). */
const PARAM_VALUES: Readonly<Record<string, string>> = {
  id: '00000000-0000-4000-8000-0000000000aa',
  approval_id: '00000000-0000-4000-8000-0000000000bb',
  run_id: 'run-matrix-0001',
  audience: 'executive',
  incident_id: 'INC-1001',
  scenario_id: 'ATK-001',
};

function concretePath(url: string): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
      const value = PARAM_VALUES[name];
      if (!value) throw new Error(`route ${url}: add a sample value for the parameter :${name} to PARAM_VALUES`);
      return value;
    })
    .replace(/\*$/, 'index.html');
}

/** Hostile spellings of one path: each either reaches the same route (then it must authenticate) or none. */
function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const out = new Set<string>();
  segments.forEach((segment, i) => {
    const letter = segment.search(/[A-Za-z0-9]/);
    if (letter < 0) return;
    const hex = `%${segment.charCodeAt(letter).toString(16).padStart(2, '0')}`;
    const encoded = `${segment.slice(0, letter)}${hex}${segment.slice(letter + 1)}`;
    out.add(`/${[...segments.slice(0, i), encoded, ...segments.slice(i + 1)].join('/')}`);
    out.add(`/${[...segments.slice(0, i), encoded.toUpperCase(), ...segments.slice(i + 1)].join('/')}`);
    out.add(`/${[...segments.slice(0, i), segment.toUpperCase(), ...segments.slice(i + 1)].join('/')}`);
    out.add(`/${[...segments.slice(0, i), '', ...segments.slice(i)].join('/')}`);
  });
  const last = segments.length - 1;
  const before = `/${segments.slice(0, last).join('/')}`;
  out.add(`/${path}`);
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`${before}/x/%2e%2e/${segments[last]}`);
  out.add(`${before}/x/%2E%2E/${segments[last]}`);
  out.add(`${before}/x/../${segments[last]}`);
  out.add(`${before}/%2e/${segments[last]}`);
  out.add(`${before}%2f${segments[last]}`);
  out.add(`${path}%00`);
  out.add(`${path}?`);
  out.add(`${path}#x`);
  out.delete(path);
  return [...out];
}

interface Answer {
  status: number;
  body: { code?: string; message?: string } | null;
  authenticate: string | undefined;
}

/** One request with the path sent exactly as written (fetch would normalise `%2e%2e` and `..`). */
function send(base: string, method: string, path: string, who: Who): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const headers: Record<string, string> = {};
  if (who === 'wrong') headers.authorization = `Bearer ${TOKENS.admin}-not`;
  else if (who !== 'none') headers.authorization = `Bearer ${ROLE_TOKEN[who]}`;
  let payload: string | undefined;
  if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
    // An unknown field: a strict body schema refuses it, so even an allowed caller changes nothing.
    payload = JSON.stringify({ matrix_probe: true });
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Answer['body'] = null;
        if ((res.headers['content-type'] ?? '').includes('json') && text) body = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, body, authenticate: res.headers['www-authenticate'] });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A request the router sent to no route: the API's own 404 body. */
const unrouted = (a: Answer): boolean => a.status === 404 && /^no route /.test(a.body?.message ?? '');

describe('soclab API route matrix (from the registered route table)', () => {
  let server: Server;
  let routes: readonly RouteAccess[];
  const tally = { tried: 0, refused: 0 };

  beforeAll(async () => {
    // A small console folder, so the static handler's routes are in the table too.
    const web = tempDir('soclab-matrix-web-');
    mkdirSync(join(web, 'assets'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(web, 'assets', 'app.js'), 'console.log("console");');
    server = await startServer({ rate_limit: { max: 1_000_000, window_ms: 60_000 } }, { webRoot: web });
    routes = server.routes;
  });
  afterAll(async () => {
    await server?.close();
    console.info(`route matrix: ${tally.tried} hostile requests, ${tally.refused} refused as expected`);
  });

  it('gives every registered route an explicit access rule, and keeps /api/v1 closed but for health', () => {
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes.filter((r) => r.permission === null).map((r) => `${r.method} ${r.url}`);
    expect(missing, 'routes without config.permission').toEqual([]);
    const looselyPublic = routes
      .filter((r) => r.permission === 'public')
      .filter((r) => r.url.startsWith('/api/') && !PUBLIC_API.has(r.url) && !r.url.startsWith('/api/docs'))
      .map((r) => `${r.method} ${r.url}`);
    expect(looselyPublic).toEqual([]);
    // The console's files are individual routes (no wildcard that would swallow unknown API paths).
    expect(routes.some((r) => r.url === '/assets/app.js')).toBe(true);
    expect(routes.some((r) => r.url === '/*' || r.url === '*')).toBe(false);
  });

  it('answers 401 without a token or with a wrong one, 403 to each lower role, and lets the allowed roles in', async () => {
    const guarded = routes.filter((r) => r.permission !== 'public' && r.permission !== null);
    expect(guarded.length).toBeGreaterThan(15);
    for (const route of guarded) {
      const path = concretePath(route.url);
      const where = `${route.method} ${path}`;
      for (const who of ['none', 'wrong'] as const) {
        const a = await send(server.base, route.method, path, who);
        tally.tried += 1;
        expect(a.status, `${where} as ${who}`).toBe(401);
        expect(a.authenticate, where).toContain('Bearer');
        if (route.method !== 'HEAD') expect(a.body?.code, where).toBe('unauthenticated');
        tally.refused += 1;
      }
      for (const role of ROLES) {
        const allowed = ROLE_PERMISSIONS[role].includes(route.permission as never);
        const a = await send(server.base, route.method, path, role);
        if (allowed) {
          expect([401, 403], `${where} as ${role} (allowed)`).not.toContain(a.status);
          expect(a.status, `${where} as ${role}`).toBeLessThan(500);
        } else {
          tally.tried += 1;
          expect(a.status, `${where} as ${role} (needs ${route.permission})`).toBe(403);
          if (route.method !== 'HEAD') expect(a.body?.code, where).toBe('forbidden');
          tally.refused += 1;
        }
      }
    }
  });

  it('authenticates every spelling the router maps to a route and 404s the rest with the API error body', async () => {
    const guarded = routes.filter((r) => r.permission !== 'public' && r.permission !== null);
    for (const route of guarded) {
      const lower = ROLES.filter((role) => !ROLE_PERMISSIONS[role].includes(route.permission as never));
      for (const path of spellings(concretePath(route.url))) {
        const where = `${route.method} ${path}`;
        // The admin's answer tells whether this spelling reaches a route at all (HEAD answers carry no body).
        const admin = await send(server.base, route.method === 'HEAD' ? 'GET' : route.method, path, 'admin');
        expect(admin.status, `${where} as admin`).toBeLessThan(500);
        const routed = !unrouted(admin);
        for (const who of ['none', 'wrong', ...lower] as Who[]) {
          const a = await send(server.base, route.method, path, who);
          tally.tried += 1;
          const expected = !routed ? 404 : who === 'none' || who === 'wrong' ? 401 : 403;
          expect(a.status, `${where} as ${who} (${routed ? 'routed' : 'no route'})`).toBe(expected);
          if (route.method !== 'HEAD') {
            expect(a.body?.code, where).toBe(
              expected === 404 ? 'not_found' : expected === 401 ? 'unauthenticated' : 'forbidden',
            );
          }
          tally.refused += 1;
        }
      }
    }
  });

  it('serves the public routes without a token, and only the console files it has', async () => {
    for (const route of routes.filter((r) => r.permission === 'public')) {
      const path = concretePath(route.url);
      const a = await send(server.base, route.method, path, 'none');
      expect(a.status, `${route.method} ${path}`).toBeLessThan(400);
    }
    for (const path of [
      '/assets/../index.html',
      '/assets/%2e%2e/index.html',
      '/assets/missing.js',
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/api/v1/nothing',
      '/api/v1/approvals/..%2f..%2fhistory',
    ]) {
      const a = await send(server.base, 'GET', path, 'none');
      tally.tried += 1;
      expect(a.status, path).toBe(404);
      expect(a.body?.code, path).toBe('not_found');
      tally.refused += 1;
    }
    for (const path of [
      `/api/v1/campaigns/${'a'.repeat(400)}`,
      `/api/v1/runs/${'r'.repeat(400)}/events`,
      '/api/v1/runs/%E0%A4%A/events',
      '/api/v1/scenarios/%C0%AE%C0%AE',
    ]) {
      for (const who of ['none', 'viewer'] as const) {
        const a = await send(server.base, 'GET', path, who);
        tally.tried += 1;
        expect(a.status, path).toBe(400);
        expect(a.body?.code, path).toBe('invalid_path');
        tally.refused += 1;
      }
    }
  });
});
