import type { Redactor } from '../core/redactor.js';

/**
 * The one secret scrubber of the project (harness and soclab). A secret is any value a run has seen in a
 * credential position (Authorization, Proxy-Authorization, Cookie, `*-api-key` / `*-token` headers, basic-auth,
 * key-like query parameters, `auth` options) or read from a secret-looking variable, whatever its source
 * (`${ENV}` interpolation, `{{env.X}}` / `{{vars.x}}` templates, literal text). Every registered value is removed
 * from text and JSON before anything is written or printed: journal lines, experiment.json, reports, the run
 * index, error messages, logs.
 *
 * Each secret is removed in the forms it is likely to be echoed in: raw, JSON-escaped (once and twice),
 * URL-encoded (RFC 3986 and form encoding, either hex case), base64 (standard, unpadded, URL-safe, and the
 * stable middle of its encoding at any byte offset, so `base64("user:" + secret)` is caught too) and hex.
 *
 * @example
 *   const s = new SecretScrubber(['tok-123456']);
 *   s.text('bad token tok-123456'); // 'bad token [REDACTED]'
 */

/** What a secret is replaced with wherever it would otherwise be recorded. */
export const REDACTED = '[REDACTED]';

/**
 * Values shorter than this are not treated as secrets: redacting every 3-letter word of a report would hide the
 * results while protecting nothing a guess could not find. Documented in docs/security.md.
 */
export const MIN_SECRET_LENGTH = 4;

/** Base64 fragments (of a secret at an unaligned offset) shorter than this would match ordinary base64 data. */
const MIN_FRAGMENT_LENGTH = 8;

// `AUTH` but not `AUTHORIT…`: an `authority_level` option is a setting to show, not a credential to hide.
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASS\b|CREDENTIAL|AUTH(?!ORIT)|COOKIE|SESSION/i;

/** True when a variable, option or field name looks like it holds a secret (`API_KEY`, `db_password`...). */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|api-key|apikey|x-api-key)$/i;

/** True for a header whose value is a credential: Authorization, Cookie, `*-api-key`, `*-token` and the like. */
export function isCredentialHeader(name: string): boolean {
  const n = name.trim();
  return CREDENTIAL_HEADER.test(n) || /(^|[-_])(api[-_]?key|token|secret|password|auth)$/i.test(n) || looksSecret(n);
}

/** True for a query parameter named like a key (`api_key`, `key`, `token`, `access_token`, `sig`...). */
export function isCredentialQueryParam(name: string): boolean {
  return looksSecret(name) || /^(sig|signature|code|pass|pwd)$/i.test(name.trim());
}

/**
 * The secret parts of a value found in a credential position: the whole value, the part after an auth scheme
 * (`Bearer x` -> `x`), the decoded user:password of `Basic`, and each cookie's value.
 */
export function credentialSecrets(value: string): string[] {
  const out = new Set<string>([value]);
  const trimmed = value.trim();
  const [, schemeName, credential] = /^([A-Za-z][\w-]*)\s+(.+)$/s.exec(trimmed) ?? [];
  if (schemeName !== undefined && credential !== undefined) {
    out.add(credential.trim());
    if (/^basic$/i.test(schemeName)) {
      const decoded = Buffer.from(credential.trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0 && /^[\x20-\x7e]*$/.test(decoded)) {
        out.add(decoded);
        out.add(decoded.slice(colon + 1));
      }
    }
  }
  // Cookie: a=1; session=xyz -> each value (a cookie header is all credentials).
  if (trimmed.includes('=')) {
    for (const pair of trimmed.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0) out.add(pair.slice(eq + 1).trim());
    }
  }
  return [...out].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/** The password of a URL's userinfo (`https://user:pass@host`), if any. */
export function urlCredentials(url: string): string[] {
  try {
    const u = new URL(url);
    const out: string[] = [];
    // A stray `%` in a password stays as typed (decodeURIComponent would throw on it).
    if (u.password) out.push(safeDecodeURIComponent(u.password), u.password);
    for (const [k, v] of u.searchParams) if (isCredentialQueryParam(k) && v) out.push(v);
    return out;
  } catch {
    return [];
  }
}

/**
 * A URL as a message may show it (a connection string in an error or a log line): the userinfo password and the value
 * of every credential query parameter (`?password=`, `?sslpassword=`, `?token=`...) replaced with `***`. Text that
 * does not parse as a URL is shown only up to its scheme: anything after it may hold the password, and without a
 * parse there is no telling where it ends.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme ? `${scheme}//... (not a valid URL, not shown)` : '(not a valid URL, not shown)';
  }
  if (u.password) u.password = '***';
  for (const key of new Set(u.searchParams.keys())) if (isCredentialQueryParam(key)) u.searchParams.set(key, '***');
  return u.toString();
}

/**
 * What to take out of a driver's message about a connection URL (drivers may echo what they were given): the URL's
 * credentials (urlCredentials), or, for text that does not parse as a URL, each candidate password of its userinfo
 * (after the user's `:`, up to the first or the last `@`) and the value of each credential query parameter, raw and
 * decoded.
 */
export function connectionUrlSecrets(url: string): string[] {
  if (URL.canParse(url)) return [...new Set(urlCredentials(url))];
  const out = new Set<string>();
  const afterUser = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:(.*)$/is.exec(url)?.[1] ?? '';
  for (const end of [afterUser.indexOf('@'), afterUser.lastIndexOf('@')]) {
    if (end > 0) out.add(afterUser.slice(0, end)).add(safeDecodeURIComponent(afterUser.slice(0, end)));
  }
  for (const [, name = '', value = ''] of url.matchAll(/[?&]([^=&#]+)=([^&#]*)/g)) {
    if (isCredentialQueryParam(safeDecodeURIComponent(name))) {
      out.add(value).add(safeDecodeURIComponent(value.replace(/\+/g, ' ')));
    }
  }
  return [...out].filter((s) => s !== '');
}

/**
 * A message about a connection URL (a driver's error may echo what it was given) with the URL shown as redactUrl shows
 * it and each candidate credential (connectionUrlSecrets) replaced with `***`.
 */
export function withoutUrlCredentials(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  for (const secret of connectionUrlSecrets(url)) out = out.split(secret).join('***');
  return out;
}

/** decodeURIComponent that decodes what it can: a stray `%` or an escape that is not UTF-8 stays as it is. */
function safeDecodeURIComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    const decode = (escapes: string, otherwise: (escapes: string) => string): string => {
      try {
        return decodeURIComponent(escapes);
      } catch {
        return otherwise(escapes);
      }
    };
    // A run of escapes as one UTF-8 sequence, else escape by escape (an invalid byte stays as written).
    return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) =>
      decode(run, () => run.replace(/%[0-9a-f]{2}/gi, (one) => decode(one, () => one))),
    );
  }
}

function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [];
  const std = bytes.toString('base64');
  out.push(std, std.replace(/=+$/, ''), bytes.toString('base64url'));
  // The same bytes at offset 1 or 2 inside a longer encoded text: only the characters that depend on the secret
  // alone are stable; the first and last one or two characters mix with the neighbours.
  for (const shift of [1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const first = Math.ceil((8 * shift) / 6);
    const last = Math.floor((8 * (shift + bytes.length)) / 6);
    const fragment = padded.slice(first, last);
    if (fragment.length >= MIN_FRAGMENT_LENGTH) out.push(fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  // Aligned, but followed by other bytes: drop the last (mixed) character.
  const whole = Math.floor((8 * bytes.length) / 6);
  if (whole >= MIN_FRAGMENT_LENGTH) out.push(std.slice(0, whole));
  return out;
}

/** Every form a secret is removed in (see the module comment). */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const json = JSON.stringify(secret).slice(1, -1);
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  const uri = encodeURIComponent(secret);
  for (const f of [secret, json, JSON.stringify(json).slice(1, -1), uri, form]) forms.add(f);
  for (const f of [uri, form]) forms.add(f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  const bytes = Buffer.from(secret, 'utf8');
  for (const f of base64Forms(bytes)) forms.add(f);
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Anything with the fields of an agent output: scrubbed as a whole (output, error, tool calls, metadata). */
type JsonLike = unknown;

/**
 * Collects secret values and removes them, in every encoded form, from text and JSON-like values.
 * A run shares one scrubber between the suite loader, the adapter and every writer, so a secret an adapter
 * first meets mid-run (a templated Authorization header) is scrubbed from everything written after that.
 */
export class SecretScrubber {
  readonly #secrets = new Set<string>();
  readonly #forms = new Set<string>();
  #pattern: RegExp | null = null;

  constructor(secrets: Iterable<string | undefined | null> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Register a secret; values shorter than MIN_SECRET_LENGTH are ignored (they would redact ordinary text). */
  add(secret: string | undefined | null): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    for (const f of secretForms(secret)) this.#forms.add(f);
    this.#pattern = null;
  }

  /** Register every secret part of a value found in a credential position (see credentialSecrets). */
  addCredential(value: string | undefined | null): void {
    if (!value) return;
    for (const s of credentialSecrets(value)) this.add(s);
  }

  /** How many distinct secrets are registered. */
  get size(): number {
    return this.#secrets.size;
  }

  /** Replace every known secret form in `value` with [REDACTED]. */
  text(value: string): string {
    if (this.#forms.size === 0 || value.length === 0) return value;
    if (!this.#pattern) {
      // Longest first: at one position the alternation takes the first form that matches, so a secret that
      // contains another is removed whole.
      const forms = [...this.#forms].sort((a, b) => b.length - a.length);
      this.#pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');
    }
    return value.replace(this.#pattern, REDACTED);
  }

  /** Scrub every string (keys included) of a JSON-like value; returns the same value when there is no secret. */
  deep<T extends JsonLike>(value: T): T {
    if (this.#forms.size === 0) return value;
    return this.#deep(value, 0) as T;
  }

  /** Scrub every text field of an agent output (same as deep, named for the adapters' use). */
  output<T extends JsonLike>(out: T): T {
    return this.deep(out);
  }

  #deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    // Past this depth, scrub the JSON text instead of recursing further (nothing deep escapes unscrubbed).
    if (depth > 64) return JSON.parse(this.text(JSON.stringify(value))) as unknown;
    if (Array.isArray(value)) return value.map((v) => this.#deep(v, depth + 1));
    if (!isPlainObject(value)) return value;
    // fromEntries defines own properties, so a `__proto__` key stays data and never becomes the prototype.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.#deep(v, depth + 1)]));
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const ENV_EXPR = /\{\{\s*env\s*(?:\.\s*([A-Za-z_][\w$-]*)|\[\s*['"]([^'"]+)['"]\s*\])[^}]*\}\}/g;

/** `auth` fields that name or configure, never hold, a credential. */
const AUTH_PUBLIC = new Set([
  'type',
  'in',
  'name',
  'username',
  'client_id',
  'token_url',
  'scope',
  'audience',
  'client_auth',
]);

type Position = 'header' | 'query' | 'auth' | 'env' | 'url';

function positionOf(parent: string | null, key: string): Position | null {
  if (parent === 'headers') return isCredentialHeader(key) ? 'header' : null;
  if (parent === 'query') return isCredentialQueryParam(key) ? 'query' : null;
  if (parent === 'auth') return AUTH_PUBLIC.has(key) || /_env$/.test(key) ? null : 'auth';
  if (parent === 'env') return looksSecret(key) ? 'env' : null;
  if (/^(url|endpoint|base_?url|server_?url)$/i.test(key)) return 'url';
  return null;
}

/**
 * Register, before a run starts, every value an agent's options put in a credential position: credential-named
 * `headers` and key-like `query` entries, `auth` secrets (and the variables its `*_env` fields name), secret-looking
 * `env` entries, and URL userinfo or key-like URL query parameters. `{{env.X}}` templates are resolved from `env`,
 * so `Authorization: Bearer {{env.X}}` is a secret whatever X is called. Values templated from cases
 * (`{{vars.x}}`, `{{input}}`) are registered by the adapter when it renders them.
 */
export function registerCredentialPositions(
  options: unknown,
  env: Readonly<Record<string, string | undefined>>,
  scrubber: Pick<Redactor, 'add' | 'addCredential'>,
  parent: string | null = null,
  depth = 0,
): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options) || depth > 16) return;
  for (const [key, value] of Object.entries(options)) {
    if (typeof value !== 'string') {
      registerCredentialPositions(value, env, scrubber, key, depth + 1);
      continue;
    }
    if (parent === 'auth' && /_env$/.test(key)) {
      scrubber.add(env[value]);
      continue;
    }
    const position = positionOf(parent, key);
    if (!position) continue;
    const resolved = value.replace(ENV_EXPR, (_m, dotted: string | undefined, bracketed: string | undefined) => {
      const v = env[(dotted ?? bracketed) as string] ?? '';
      if (position !== 'url') scrubber.addCredential(v);
      return v;
    });
    if (position === 'url') for (const secret of urlCredentials(resolved)) scrubber.add(secret);
    else if (!resolved.includes('{{')) scrubber.addCredential(resolved);
  }
}
