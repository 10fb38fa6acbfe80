import { describe, expect, it } from 'vitest';
import { AuthError, AuthOptions, createAuthenticator, type TokenFetch } from '../../../../src/adapters/http/auth.js';
import { SecretScrubber } from '../../../../src/secrets/scrubber.js';
import { defined } from '../../../helpers/defined.js';

const signal = new AbortController().signal;

async function apply(opts: unknown, env: Record<string, string> = {}, fetchToken?: TokenFetch) {
  const scrubber = new SecretScrubber();
  const auth = createAuthenticator(
    AuthOptions.parse(opts),
    env,
    scrubber,
    fetchToken ?? (async () => ({ status: 500, text: '' })),
  );
  const headers: Record<string, string> = {};
  const query = new URLSearchParams();
  await auth.apply(headers, query, signal);
  return { headers, query, scrubber, auth };
}

describe('createAuthenticator', () => {
  it('sets bearer, basic and api-key credentials and registers them as secrets', async () => {
    const b = await apply({ type: 'bearer', token_env: 'TOK' }, { TOK: 'tok-secret-1' });
    expect(b.headers.authorization).toBe('Bearer tok-secret-1');
    expect(b.scrubber.text('echo tok-secret-1')).toBe('echo [REDACTED]');

    const basic = await apply({ type: 'basic', username: 'ann', password: 'pw-123' });
    expect(basic.headers.authorization).toBe(`Basic ${Buffer.from('ann:pw-123').toString('base64')}`);
    expect(basic.scrubber.text(defined(basic.headers.authorization, 'the authorization header'))).toBe(
      'Basic [REDACTED]',
    );

    const key = await apply({ type: 'api_key', in: 'query', name: 'key', value: 'k-999' });
    expect(key.query.get('key')).toBe('k-999');
    const header = await apply({ type: 'api_key', name: 'X-Api-Key', value: 'k-999' });
    expect(header.headers['x-api-key']).toBe('k-999');
  });

  it('names the missing secret', async () => {
    await expect(apply({ type: 'bearer', token_env: 'NOPE' })).rejects.toThrowError(
      'auth.token_env: environment variable NOPE is not set',
    );
    await expect(apply({ type: 'bearer' })).rejects.toThrowError(AuthError);
  });

  it('fetches an OAuth2 token once for concurrent requests and refreshes it before expiry', async () => {
    let calls = 0;
    let now = 1_000_000;
    const seen: string[] = [];
    const fetchToken: TokenFetch = async (_url, init) => {
      calls++;
      seen.push(init.body);
      expect(init.headers.authorization).toBe(`Basic ${Buffer.from('cid:csecret').toString('base64')}`);
      await new Promise((r) => setTimeout(r, 20));
      return { status: 200, text: JSON.stringify({ access_token: `at-${calls}`, expires_in: 60 }) };
    };
    const scrubber = new SecretScrubber();
    const auth = createAuthenticator(
      AuthOptions.parse({
        type: 'oauth2',
        token_url: 'http://127.0.0.1:1/token',
        client_id: 'cid',
        client_secret: 'csecret',
        scope: ['a', 'b'],
        refresh_margin: 10,
      }),
      {},
      scrubber,
      fetchToken,
      () => now,
    );
    const all = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const h: Record<string, string> = {};
        await auth.apply(h, new URLSearchParams(), signal);
        return h.authorization;
      }),
    );
    expect(new Set(all)).toEqual(new Set(['Bearer at-1']));
    expect(calls).toBe(1);
    expect(seen[0]).toBe('grant_type=client_credentials&scope=a+b');
    expect(scrubber.text('leak at-1')).toBe('leak [REDACTED]');

    now += 45_000; // still fresh: the refresh window opens 10 s before the 60 s expiry
    const fresh: Record<string, string> = {};
    await auth.apply(fresh, new URLSearchParams(), signal);
    expect(fresh.authorization).toBe('Bearer at-1');
    now += 7_000; // now inside the margin
    const h: Record<string, string> = {};
    await auth.apply(h, new URLSearchParams(), signal);
    expect(h.authorization).toBe('Bearer at-2');
    expect(calls).toBe(2);

    auth.rejected();
    await auth.apply(h, new URLSearchParams(), signal);
    expect(h.authorization).toBe('Bearer at-3');
  });

  it('reports token endpoint failures without the client secret', async () => {
    const err = await apply(
      { type: 'oauth2', token_url: 'http://127.0.0.1:1/token', client_id: 'cid', client_secret: 'csecret' },
      {},
      async () => ({ status: 503, text: 'down, your secret is csecret' }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).transient).toBe(true);
    expect((err as Error).message).toContain('HTTP 503');
    expect((err as Error).message).not.toContain('csecret');
  });
});
