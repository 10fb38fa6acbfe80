/**
 * Lenient parsing closed: API bodies with invalid UTF-8, lone surrogates, keys that reach a prototype
 * (`__proto__`, `constructor.prototype`) or a key given twice in one object are 400 with a code and the place (byte offset or field path); nothing
 * is started. Before, invalid bytes became U+FFFD and the campaign ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Json, startServer, TOKENS } from '../../helpers/api.js';

type Server = Awaited<ReturnType<typeof startServer>>;

async function post(base: string, path: string, bytes: Buffer, as: keyof typeof TOKENS = 'admin') {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS[as]}`, 'content-type': 'application/json' },
    body: new Uint8Array(bytes),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const DECISION = '/api/v1/approvals/00000000-0000-4000-8000-000000000000/decision';

describe('soclab API: hostile JSON bodies', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses invalid UTF-8 with the byte offset, and starts nothing', async () => {
    const prefix = Buffer.from('{"mode":"baseline","scenario_ids":["BEN-002"],"note":"');
    for (const bad of [[0xff], [0xc0, 0xae], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const body = Buffer.concat([prefix, Buffer.from(bad), Buffer.from('"}')]);
      const r = await post(server.base, '/api/v1/campaigns', body);
      expect(r.status, Buffer.from(bad).toString('hex')).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_utf8', message: `body: not valid UTF-8 (byte ${prefix.length})` });
    }
    const d = await post(server.base, DECISION, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(d.body).toMatchObject({ code: 'invalid_utf8', message: 'body: not valid UTF-8 (byte 2)' });
    expect((await call(server.base, 'GET', '/api/v1/campaigns', { as: 'viewer' })).body).toEqual([]);
  });

  it('refuses keys that reach a prototype and lone surrogates, naming the field path', async () => {
    const cases: [string, string, string][] = [
      ['{"__proto__":{"mode":"baseline"}}', 'body.__proto__', 'forbidden_key'],
      [
        '{"mode":"baseline","scenario_ids":["BEN-002"],"ablate":null,"x":{"__proto__":{}}}',
        'body.x.__proto__',
        'forbidden_key',
      ],
      ['{"constructor":{"prototype":{"admin":true}}}', 'body.constructor.prototype', 'forbidden_key'],
      ['{"scenario_ids":[{"__proto__":1}]}', 'body.scenario_ids.0.__proto__', 'forbidden_key'],
      ['{"mode":"baseline","note":"\\ud800"}', 'body.note', 'forbidden_key'],
    ];
    for (const [text, path, code] of cases) {
      const r = await post(server.base, '/api/v1/campaigns', Buffer.from(text));
      expect(r.status, text).toBe(400);
      expect(r.body.code, text).toBe(code);
      expect(r.body.issues[0].path, text).toBe(path);
    }
    const d = await post(
      server.base,
      DECISION,
      Buffer.from('{"decision":"approved","reason":"x","__proto__":{}}'),
      'approver',
    );
    expect(d).toMatchObject({ status: 400, body: { code: 'forbidden_key' } });
    // A well-formed surrogate pair (an emoji) is fine: the request reaches validation.
    const emoji = await post(
      server.base,
      DECISION,
      Buffer.from('{"decision":"maybe","reason":"\\ud83d\\ude00"}'),
      'approver',
    );
    expect(emoji.status).toBe(422);
    expect((await call(server.base, 'GET', '/api/v1/campaigns', { as: 'viewer' })).body).toEqual([]);
  });

  it('refuses bodies nested deeper than 64 levels with 400 too_deep naming the path, never a 500', async () => {
    // Well under the body limit, but deep enough that a recursive walk of the parsed value overflowed the stack (500).
    const cases: [string, string, string][] = [
      ['/api/v1/campaigns', `${'['.repeat(30_000)}${']'.repeat(30_000)}`, `body${'.0'.repeat(64)}`],
      ['/api/v1/campaigns', `{"x":${'{"a":'.repeat(6_000)}1${'}'.repeat(6_000)}}`, `body.x${'.a'.repeat(63)}`],
      [DECISION, `{"decision":"approved","reason":"x","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, 'body.x'],
    ];
    for (const [path, text, at] of cases) {
      const r = await post(server.base, path, Buffer.from(text));
      expect(r.status, text.slice(0, 40)).toBe(400);
      expect(r.body.code).toBe('too_deep');
      expect(r.body.issues[0].path.startsWith(at)).toBe(true);
      expect(r.body.message).toMatch(/nested deeper than 64 levels/);
    }
    // 64 levels are fine: the request reaches validation.
    const ok = await post(server.base, DECISION, Buffer.from(`{"x":${'['.repeat(63)}${']'.repeat(63)}}`), 'approver');
    expect(ok.status).toBe(422);
    expect((await call(server.base, 'GET', '/api/v1/campaigns', { as: 'viewer' })).body).toEqual([]);
  });

  it('refuses a key given twice in one object (400 duplicate_key naming it), and starts nothing', async () => {
    // JSON.parse keeps the last "mode"; a proxy or firewall in front may have read the first.
    const cases: [string, string, string][] = [
      ['/api/v1/campaigns', '{"mode":"baseline","scenario_ids":["BEN-002"],"mode":"protected"}', 'body.mode'],
      ['/api/v1/campaigns', '{"mode":"baseline","scenario_ids":["BEN-002"],"\\u006dode":"protected"}', 'body.mode'],
      [DECISION, '{"decision":"rejected","reason":"no","decision":"approved"}', 'body.decision'],
    ];
    for (const [path, text, at] of cases) {
      const r = await post(server.base, path, Buffer.from(text), path === DECISION ? 'approver' : 'admin');
      expect(r.status, text).toBe(400);
      expect(r.body).toMatchObject({ code: 'duplicate_key', message: `${at}: the key appears twice in one object` });
      expect(r.body.issues[0].path).toBe(at);
    }
    expect((await call(server.base, 'GET', '/api/v1/campaigns', { as: 'viewer' })).body).toEqual([]);
  });

  it('refuses bodies that are not application/json with 415, text/plain included', async () => {
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${server.base}/api/v1/campaigns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': type },
        body: '{"mode":"baseline","scenario_ids":["BEN-002"]}',
      });
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as Json).code, type).toBe('unsupported_media_type');
    }
    expect((await call(server.base, 'GET', '/api/v1/campaigns', { as: 'viewer' })).body).toEqual([]);
  });

  it('refuses empty bodies, trailing commas and other malformed JSON with invalid_json', async () => {
    for (const text of ['', '{"mode":"baseline",}', '{"mode":', '[1,]', '{"a":1}{"b":2}', 'NaN']) {
      const r = await post(server.base, '/api/v1/campaigns', Buffer.from(text));
      expect(r.status, JSON.stringify(text)).toBe(400);
      expect(r.body.code, JSON.stringify(text)).toBe('invalid_json');
      expect(r.body.message).toMatch(/^body: /);
    }
  });
});
