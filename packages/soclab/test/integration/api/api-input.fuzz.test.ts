/**
 * Property tests of the API's input handling on a real server: arbitrary campaign and decision bodies (JSON
 * values, near-valid requests, raw bytes) and arbitrary query strings. The property: a clear answer (a status
 * the API documents and its error body with a code, a message and field paths under `body.` / `querystring.`),
 * never a 5xx, a stack trace or a hang; invalid UTF-8 is always `invalid_utf8`; whatever is accepted is stored
 * (and cancelled again at once, so the server stays idle).
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startServer, TOKENS } from '../../helpers/api.js';
import { fuzzParameters, fuzzTimeout } from '../../helpers/fuzz.js';

type Server = Awaited<ReturnType<typeof startServer>>;
const SUITE_RUNS = 150;
const tally = { tried: 0, handled: 0 };

interface Answer {
  status: number;
  text: string;
  body: Json;
}

function send(
  base: string,
  method: string,
  path: string,
  body?: Buffer,
  token: string = TOKENS.admin,
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), method, path, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Json = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        resolve({ status: res.statusCode ?? 0, text, body: parsed });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} within 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const isUtf8 = (bytes: Buffer): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The shape every refusal has; no internals. */
function expectErrorBody(a: Answer, where: string): void {
  expect(a.body, `${where}: ${a.text.slice(0, 200)}`).toMatchObject({
    statusCode: a.status,
    code: expect.any(String),
    message: expect.any(String),
  });
  expect(a.text, where).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
const nearCampaign = fc.record(
  {
    mode: fc.oneof(fc.constantFrom('baseline', 'protected'), text),
    provider_id: fc.oneof(fc.constant('mock'), text),
    scenario_ids: fc.array(fc.oneof(fc.constantFrom('BEN-002', 'ATK-001', 'atk-005'), text), { maxLength: 3 }),
    repeats: fc.oneof(fc.integer({ min: -2, max: 12 }), text, fc.double()),
    approver: fc.oneof(fc.constantFrom('none', 'ideal', 'human', 'noisy:0.5', 'noisy:2'), text),
    authority_level: fc.oneof(fc.constantFrom('L1', 'L4', 'L9'), text),
    note: text,
    approval_timeout_seconds: fc.oneof(fc.integer(), fc.constant(null)),
  },
  { requiredKeys: [] },
);
const withExtras = fc
  .tuple(nearCampaign, fc.dictionary(text, fc.jsonValue(), { maxKeys: 2 }))
  .map(([base, extra]) => ({ ...extra, ...base }));
const jsonBody = fc
  .oneof(nearCampaign, withExtras, fc.jsonValue())
  .map((v) => Buffer.from(JSON.stringify(v) ?? 'null'));
/** Valid JSON text with bytes flipped, cut or spliced in: broken UTF-8, broken syntax. */
const mangled = fc
  .tuple(jsonBody, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 }), fc.constantFrom('insert', 'cut', 'replace'))
  .map(([bytes, at, junk, how]) => {
    const i = bytes.length === 0 ? 0 : at % bytes.length;
    if (how === 'cut') return bytes.subarray(0, i);
    const tail = bytes.subarray(how === 'replace' ? Math.min(bytes.length, i + junk.length) : i);
    return Buffer.concat([bytes.subarray(0, i), Buffer.from(junk), tail]);
  });
const anyBody = fc.oneof(
  jsonBody,
  mangled,
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

describe('API input properties', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({
      rate_limit: { max: 1_000_000, window_ms: 60_000 },
      max_running_campaigns: 1,
      max_queued_campaigns: 10_000,
    });
  });
  afterAll(async () => {
    await server?.close();
    console.info(`api input fuzz: ${tally.tried} inputs, ${tally.handled} handled as the property requires`);
  });

  it(
    'campaign bodies: a documented status with a clear error, never 5xx; accepted ones are stored',
    async () => {
      await fc.assert(
        fc.asyncProperty(anyBody, async (body) => {
          tally.tried += 1;
          const a = await send(server.base, 'POST', '/api/v1/campaigns', body);
          const where = `POST /api/v1/campaigns ${JSON.stringify(body.toString('latin1').slice(0, 80))}`;
          expect([202, 400, 413, 415, 422], where).toContain(a.status);
          if (!isUtf8(body)) expect(a.body?.code, where).toBe('invalid_utf8');
          if (a.status === 202) {
            expect(a.body.status, where).toBe('queued');
            const cancel = await send(server.base, 'DELETE', `/api/v1/campaigns/${a.body.campaign_id}`);
            expect([200, 409], where).toContain(cancel.status);
          } else {
            expectErrorBody(a, where);
            for (const issue of a.body.issues ?? []) expect(issue.path, where).toMatch(/^body(\.|$)/);
          }
          tally.handled += 1;
        }),
        fuzzParameters(SUITE_RUNS),
      );
    },
    fuzzTimeout(SUITE_RUNS, 200),
  );

  it(
    'decision bodies: 400/404/422 with a clear error, never 5xx',
    async () => {
      const decision = fc.record(
        { decision: fc.oneof(fc.constantFrom('approved', 'rejected'), text), reason: text, approver_id: text },
        { requiredKeys: [] },
      );
      const bodies = fc.oneof(
        anyBody,
        decision.map((d) => Buffer.from(JSON.stringify(d))),
      );
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          tally.tried += 1;
          const path = '/api/v1/approvals/00000000-0000-4000-8000-000000000000/decision';
          const a = await send(server.base, 'POST', path, body, TOKENS.approver);
          const where = `POST decision ${JSON.stringify(body.toString('latin1').slice(0, 80))}`;
          expect([400, 403, 404, 413, 422], where).toContain(a.status);
          expectErrorBody(a, where);
          tally.handled += 1;
        }),
        fuzzParameters(SUITE_RUNS),
      );
    },
    fuzzTimeout(SUITE_RUNS, 100),
  );

  it(
    'query strings: 200, 404 or 422 naming querystring.<field>, never 5xx',
    async () => {
      const key = fc.oneof(fc.constantFrom('limit', 'offset', 'status', 'campaign_id', 'baseline'), fc.string());
      const value = fc.oneof(
        fc.integer({ min: -5, max: 2_000_000 }).map(String),
        fc.constantFrom('queued', 'completed', '00000000-0000-4000-8000-000000000000', '', '1e3', '0x10', 'NaN'),
        fc.string(),
        fc.string({ unit: 'binary' }),
      );
      // Every byte outside the unreserved set percent-encoded (lone surrogates become U+FFFD, as a client would).
      const encode = (t: string) =>
        [...Buffer.from(t, 'utf8')]
          .map((b) =>
            /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
              ? String.fromCharCode(b)
              : `%${b.toString(16).padStart(2, '0')}`,
          )
          .join('');
      // Raw pairs keep the printable characters a client might send unencoded (%, &, =, [, ]).
      const loose = (t: string) =>
        encode(t).replace(/%(2[1-9a-fA-F]|[3-7][0-9a-eA-E])/g, (m) =>
          String.fromCharCode(Number.parseInt(m.slice(1), 16)),
        );
      const pair = fc
        .tuple(key, value, fc.boolean())
        .map(([k, v, raw]) => (raw ? `${loose(k)}=${loose(v)}` : `${encode(k)}=${encode(v)}`));
      const query = fc.oneof(
        fc.array(pair, { maxLength: 4 }).map((pairs) => pairs.join('&')),
        fc.constantFrom('%', '%zz', '&&', '=', 'limit', 'limit[]=1', 'limit=1&limit=2', '%E0%A4%A=1', 'limit=%00'),
      );
      const route = fc.constantFrom(
        '/api/v1/runs',
        '/api/v1/campaigns',
        '/api/v1/approvals',
        '/api/v1/approvals/history',
        '/api/v1/campaigns/00000000-0000-4000-8000-000000000000/reports/executive/json',
      );
      await fc.assert(
        fc.asyncProperty(route, query, async (path, q) => {
          tally.tried += 1;
          const url = `${path}?${q.replace(/#/g, '%23').replace(/\s/g, '%20')}`;
          const a = await send(server.base, 'GET', url, undefined, TOKENS.viewer);
          expect([200, 400, 404, 422], url).toContain(a.status);
          if (a.status !== 200) {
            expectErrorBody(a, url);
            for (const issue of a.body.issues ?? []) expect(issue.path, url).toMatch(/^querystring(\.|$)/);
          }
          tally.handled += 1;
        }),
        fuzzParameters(SUITE_RUNS),
      );
    },
    fuzzTimeout(SUITE_RUNS, 100),
  );
});
