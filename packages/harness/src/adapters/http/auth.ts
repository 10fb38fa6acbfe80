import { z } from 'zod';
import { errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redactor.js';

/**
 * Request authentication for the HTTP (and MCP over HTTP) adapters: bearer token, basic, API key in a header
 * or query parameter, and OAuth2 client credentials with a cached token and single-flight refresh.
 * Secrets come from the option itself (usually `${ENV}` interpolated by the suite loader) or from `*_env`,
 * the name of an environment variable; every secret value, including fetched access tokens, is registered
 * with the scrubber so it is removed from anything the adapter returns.
 */

const optionalText = z.string().min(1).optional();

export const AuthOptions = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), token: optionalText, token_env: optionalText }),
  z.strictObject({
    type: z.literal('basic'),
    username: z.string(),
    password: optionalText,
    password_env: optionalText,
  }),
  z.strictObject({
    type: z.literal('api_key'),
    /** Where the key goes. */
    in: z.enum(['header', 'query']).default('header'),
    /** Header or query parameter name. */
    name: z.string().min(1).default('x-api-key'),
    value: optionalText,
    value_env: optionalText,
  }),
  z.strictObject({
    type: z.literal('oauth2'),
    token_url: z.url(),
    client_id: z.string().min(1),
    client_secret: optionalText,
    client_secret_env: optionalText,
    scope: z.union([z.string(), z.array(z.string())]).optional(),
    audience: z.string().optional(),
    /** How the client authenticates to the token endpoint. */
    client_auth: z.enum(['basic', 'body']).default('basic'),
    /** Refresh this many seconds before the token expires. */
    refresh_margin: z.number().min(0).default(30),
    /** Lifetime assumed when the token response has no expires_in. */
    default_expires_in: z.number().positive().default(3600),
  }),
]);
export type AuthOptions = z.infer<typeof AuthOptions>;
export type AuthOptionsInput = z.input<typeof AuthOptions>;

/** Minimal transport the OAuth2 flow needs (the HTTP adapter passes its connection pool). */
export type TokenFetch = (
  url: string,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; text: string }>;

export class AuthError extends Error {
  readonly code = 'AEH_ERR_AUTH';
  override name = 'AuthError';
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

export interface Authenticator {
  /** Add credentials to a request's headers / query (may fetch or refresh an OAuth2 token). */
  apply(headers: Record<string, string>, query: URLSearchParams, signal: AbortSignal): Promise<void>;
  /** Forget a cached token after the server rejected it (401), so the next request fetches a new one. */
  rejected(): void;
}

function readSecret(
  options: Record<string, unknown>,
  field: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const direct = options[field];
  if (typeof direct === 'string' && direct.length > 0) return direct;
  const envName = options[`${field}_env`];
  if (typeof envName === 'string') {
    const value = env[envName];
    if (value) return value;
    throw new AuthError(`auth.${field}_env: environment variable ${envName} is not set`);
  }
  throw new AuthError(`auth.${field}: required (give the value, usually as \${ENV_VAR}, or ${field}_env)`);
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

/** Build the authenticator for validated options; throws AuthError (naming the option) when a secret is missing. */
export function createAuthenticator(
  options: AuthOptions,
  env: Readonly<Record<string, string | undefined>>,
  scrubber: Redactor,
  fetchToken: TokenFetch,
  now: () => number = Date.now,
): Authenticator {
  const raw = options as Record<string, unknown>;
  switch (options.type) {
    case 'bearer': {
      const token = readSecret(raw, 'token', env);
      scrubber.add(token);
      return {
        async apply(headers) {
          headers.authorization = `Bearer ${token}`;
        },
        rejected() {},
      };
    }
    case 'basic': {
      const password = readSecret(raw, 'password', env);
      scrubber.add(password);
      const encoded = Buffer.from(`${options.username}:${password}`).toString('base64');
      scrubber.add(encoded);
      return {
        async apply(headers) {
          headers.authorization = `Basic ${encoded}`;
        },
        rejected() {},
      };
    }
    case 'api_key': {
      const value = readSecret(raw, 'value', env);
      scrubber.add(value);
      const where = options.in;
      const name = options.name;
      return {
        async apply(headers, query) {
          if (where === 'header') headers[name.toLowerCase()] = value;
          else query.set(name, value);
        },
        rejected() {},
      };
    }
    case 'oauth2': {
      const clientSecret = readSecret(raw, 'client_secret', env);
      scrubber.add(clientSecret);
      scrubber.add(Buffer.from(`${options.client_id}:${clientSecret}`).toString('base64'));
      let cached: CachedToken | null = null;
      let inflight: Promise<CachedToken> | null = null;

      const fetchNew = async (signal: AbortSignal): Promise<CachedToken> => {
        const form = new URLSearchParams({ grant_type: 'client_credentials' });
        const headers: Record<string, string> = {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        };
        if (options.client_auth === 'basic') {
          const id = encodeURIComponent(options.client_id);
          headers.authorization = `Basic ${Buffer.from(`${id}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
        } else {
          form.set('client_id', options.client_id);
          form.set('client_secret', clientSecret);
        }
        if (options.scope) form.set('scope', Array.isArray(options.scope) ? options.scope.join(' ') : options.scope);
        if (options.audience) form.set('audience', options.audience);
        let res: { status: number; text: string };
        try {
          res = await fetchToken(options.token_url, { headers, body: form.toString(), signal });
        } catch (err) {
          throw new AuthError(
            `OAuth2 token request to ${options.token_url} failed: ${scrubber.text(errorMessage(err))}`,
            true,
          );
        }
        if (res.status < 200 || res.status >= 300) {
          const transient = res.status === 429 || res.status >= 500;
          throw new AuthError(
            `OAuth2 token request to ${options.token_url} failed: HTTP ${res.status} ${scrubber.text(res.text).slice(0, 200)}`,
            transient,
          );
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(res.text) as Record<string, unknown>;
        } catch {
          throw new AuthError(`OAuth2 token response from ${options.token_url} is not JSON`);
        }
        const token = body.access_token;
        if (typeof token !== 'string' || token.length === 0) {
          throw new AuthError(`OAuth2 token response from ${options.token_url} has no access_token`);
        }
        scrubber.add(token);
        const lifetime =
          typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : options.default_expires_in;
        return { value: token, expiresAt: now() + lifetime * 1000 };
      };

      const current = async (signal: AbortSignal): Promise<CachedToken> => {
        if (cached && now() < cached.expiresAt - options.refresh_margin * 1000) return cached;
        // Single flight: concurrent requests share one token request instead of stampeding the endpoint.
        if (!inflight) {
          // The token request is not tied to the first caller's signal: other callers are waiting on it too.
          const controller = new AbortController();
          const timer = setTimeout(() => controller.abort(), 30_000);
          inflight = fetchNew(controller.signal)
            .then((t) => {
              cached = t;
              return t;
            })
            .finally(() => {
              clearTimeout(timer);
              inflight = null;
            });
        }
        return await abortable(inflight, signal);
      };

      return {
        async apply(headers, _query, signal) {
          const t = await current(signal);
          headers.authorization = `Bearer ${t.value}`;
        },
        rejected() {
          cached = null;
        },
      };
    }
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AuthError('aborted while waiting for an OAuth2 token'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AuthError('aborted while waiting for an OAuth2 token'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
