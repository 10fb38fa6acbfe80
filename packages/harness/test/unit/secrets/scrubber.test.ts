import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentOutput } from '../../../src/core/agent.js';
import {
  connectionUrlSecrets,
  credentialSecrets,
  isCredentialHeader,
  isCredentialQueryParam,
  MIN_SECRET_LENGTH,
  REDACTED,
  redactUrl,
  registerCredentialPositions,
  SecretScrubber,
  urlCredentials,
  withoutUrlCredentials,
} from '../../../src/secrets/scrubber.js';

const SECRET = 's3cr3t/+=tok-Ä"\\x';

describe('SecretScrubber', () => {
  it('leaves text alone when it knows no secret, and ignores values too short to be secrets', () => {
    const s = new SecretScrubber([undefined, null, '', 'abc']);
    expect(s.size).toBe(0);
    expect(s.text('abc abc')).toBe('abc abc');
    const value = { a: ['abc'] };
    expect(s.deep(value)).toBe(value);
    expect(MIN_SECRET_LENGTH).toBe(4);
  });

  it('removes a secret in raw, JSON-escaped, URL-encoded, base64 and hex forms', () => {
    const s = new SecretScrubber([SECRET]);
    const bytes = Buffer.from(SECRET);
    const forms = [
      SECRET,
      JSON.stringify(SECRET).slice(1, -1),
      JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1),
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      new URLSearchParams({ q: SECRET }).toString().slice(2),
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=+$/, ''),
      bytes.toString('base64url'),
      bytes.toString('hex'),
    ];
    for (const form of forms) {
      expect(s.text(`<${form}>`), form).toBe(`<${REDACTED}>`);
    }
    // A whole JSON document holding the secret anywhere parses back with the secret gone.
    const doc = JSON.stringify({ nested: { echo: `token=${SECRET}` } });
    expect(JSON.parse(s.text(doc))).toEqual({ nested: { echo: `token=${REDACTED}` } });
  });

  it('finds the secret inside a longer base64 text at any byte offset (Basic user:password)', () => {
    const password = 'hunter2-correct-horse';
    const s = new SecretScrubber([password]);
    for (const user of ['a', 'ab', 'abc', 'user']) {
      const b64 = Buffer.from(`${user}:${password}`).toString('base64');
      const scrubbed = s.text(`Basic ${b64}`);
      expect(scrubbed).toContain(REDACTED);
      // What is left of the encoding cannot be decoded back to the password.
      expect(Buffer.from(scrubbed.replace('Basic ', '').replace(REDACTED, ''), 'base64').toString()).not.toContain(
        'horse',
      );
    }
  });

  it('removes the longest secret first and scrubs keys, nested values and agent outputs', () => {
    const s = new SecretScrubber(['abcd', 'abcdefgh']);
    expect(s.text('abcdefgh abcd')).toBe(`${REDACTED} ${REDACTED}`);
    const out = s.output(
      agentOutput({
        output: { echo: 'abcdefgh', 'k-abcd': 1 },
        error: 'bad abcd',
        tool_calls: [{ tool_name: 't', args: { a: 'abcdefgh' } }],
        metadata: { raw: ['abcd'] },
      }),
    );
    expect(JSON.stringify(out)).not.toContain('abcd');
    expect(out.error).toBe(`bad ${REDACTED}`);
  });

  it('keeps a __proto__ key as data and scrubs values nested deeper than the walk', () => {
    const s = new SecretScrubber(['deep-secret']);
    const hostile = JSON.parse('{"__proto__": {"polluted": "deep-secret"}}') as Record<string, unknown>;
    const out = s.deep(hostile) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    let deep: unknown = 'deep-secret';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    expect(JSON.stringify(s.deep(deep))).not.toContain('deep-secret');
  });

  it('learns a secret mid-run: text scrubbed after add() loses it', () => {
    const s = new SecretScrubber();
    expect(s.text('late-token')).toBe('late-token');
    s.add('late-token');
    expect(s.text('late-token')).toBe(REDACTED);
  });
});

describe('credential positions', () => {
  it('names credential headers and key-like query parameters, not ordinary ones', () => {
    for (const h of ['Authorization', 'proxy-authorization', 'Cookie', 'X-Api-Key', 'x-goog-api-key', 'X-Auth-Token'])
      expect(isCredentialHeader(h), h).toBe(true);
    for (const h of ['content-type', 'accept', 'x-request-id', 'user-agent'])
      expect(isCredentialHeader(h), h).toBe(false);
    for (const q of ['api_key', 'apikey', 'key', 'access_token', 'sig', 'password'])
      expect(isCredentialQueryParam(q), q).toBe(true);
    for (const q of ['q', 'page', 'lang']) expect(isCredentialQueryParam(q), q).toBe(false);
  });

  it('takes the secret parts of a credential value: scheme stripped, Basic decoded, cookie values', () => {
    expect(credentialSecrets('Bearer tok-123456')).toEqual(['Bearer tok-123456', 'tok-123456']);
    const basic = `Basic ${Buffer.from('ann:pa55word').toString('base64')}`;
    expect(credentialSecrets(basic)).toEqual(expect.arrayContaining(['ann:pa55word', 'pa55word']));
    expect(credentialSecrets('theme=dark; session=s-99887766')).toEqual(expect.arrayContaining(['s-99887766', 'dark']));
    expect(urlCredentials('https://ann:p%40ss-word@example.test/x?api_key=k-12345&q=hello')).toEqual([
      'p@ss-word',
      'p%40ss-word',
      'k-12345',
    ]);
    expect(urlCredentials('not a url')).toEqual([]);
  });

  it('registers {{env.X}} templates in credential positions whatever X is called', () => {
    const s = new SecretScrubber();
    const env = { AGENT_BEARER: 'bearer-value-1', PLAIN: 'plain-value-2', KEY_VAR: 'api-key-value-3', PW: 'pw-4444' };
    registerCredentialPositions(
      {
        url: 'https://ann:{{env.PW}}@agent.test/ask?api_key={{env.KEY_VAR}}',
        headers: { Authorization: 'Bearer {{env.AGENT_BEARER}}', 'x-trace': '{{env.PLAIN}}' },
        query: { token: '{{ env["KEY_VAR"] }}', q: '{{input}}' },
        auth: { type: 'bearer', token_env: 'PW' },
      },
      env,
      s,
    );
    expect(s.text('bearer-value-1 api-key-value-3 pw-4444')).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
    // A value in an ordinary header is not a secret.
    expect(s.text('plain-value-2')).toBe('plain-value-2');
  });
});

describe('connection URLs in messages (redactUrl, connectionUrlSecrets, withoutUrlCredentials)', () => {
  // Every generated password starts with the marker, so finding the marker means finding the password. No hex
  // digits: a `%` in a typed password is then always a stray one, kept as typed (a `%41` would be an escape).
  const marker = 'Pw7q';
  const password = fc
    .string({ unit: fc.constantFrom(...'gXZ:/@%?#&=+ ~_'), minLength: 1, maxLength: 12 })
    .map((s) => `${marker}${s}`);

  it('keep a URL without credentials as it is and replace each kind of credential', () => {
    expect(redactUrl('postgres://db:5432/h?sslmode=require')).toBe('postgres://db:5432/h?sslmode=require');
    expect(redactUrl('postgres://u:p%40ss@db/h')).toBe('postgres://u:***@db/h');
    expect(redactUrl('postgres://u@db/h?sslmode=require&password=pa55&sslpassword=k3y')).toBe(
      'postgres://u@db/h?sslmode=require&password=***&sslpassword=***',
    );
    expect(redactUrl('postgres://u:pa55@db:99999/h')).toBe('postgres://... (not a valid URL, not shown)');
    expect(redactUrl('pa55 word')).toBe('(not a valid URL, not shown)');
    expect(connectionUrlSecrets('postgres://u:p%40ss@db/h?password=q-1234')).toEqual(['p@ss', 'p%40ss', 'q-1234']);
    expect(connectionUrlSecrets('postgres://db/h')).toEqual([]);
    expect(connectionUrlSecrets('postgres://u:pa@55@db:99999/h')).toEqual(['pa', 'pa@55']);
    expect(connectionUrlSecrets('postgres://u@db:99999/h?password=pa%2055')).toEqual(['pa%2055', 'pa 55']);
    expect(withoutUrlCredentials('connect to postgres://u:pa55@db/h failed (pa55)', 'postgres://u:pa55@db/h')).toBe(
      'connect to postgres://u:***@db/h failed (***)',
    );
    // A stray % in a password is kept as typed, not a crash.
    expect(new Set(urlCredentials('postgres://u:50%off@db/h'))).toEqual(new Set(['50%off']));
  });

  it('never show a password, in the userinfo or the query string, whether the URL parses or not', () => {
    fc.assert(
      fc.property(password, fc.constantFrom('5432', '99999', 'x'), fc.boolean(), (pw, port, inQuery) => {
        const url = inQuery
          ? `postgres://u@db:${port}/h?sslmode=require&password=${encodeURIComponent(pw)}`
          : `postgres://u:${pw}@db:${port}/h`;
        expect(redactUrl(url)).not.toContain(marker);
        // As a driver might echo it: the URL, and the password on its own.
        expect(withoutUrlCredentials(`cannot connect to ${url} with password ${pw}`, url)).not.toContain(marker);
      }),
      { seed: 22, numRuns: 2000 },
    );
  });
});
