import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '@aeh/harness/directories';
import type { Role, TokenConfig } from './config.js';
import { ApiError } from './errors.js';

/** What a role may do. Approving is kept apart from starting campaigns (separation of duties); admin does all. */
export type Permission = 'read' | 'run' | 'approve' | 'admin';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = Object.freeze({
  viewer: ['read'],
  operator: ['read', 'run'],
  approver: ['read', 'approve'],
  admin: ['read', 'run', 'approve', 'admin'],
});

/** The caller behind a valid token. `name` is the identity recorded as approver and campaign owner. */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  /** A short, non-reversible key for rate limiting (never the token). */
  readonly key: string;
}

export const can = (principal: Principal, permission: Permission): boolean =>
  ROLE_PERMISSIONS[principal.role].includes(permission);

/**
 * The caller of a route that declares a permission. Access control sets it before the handler runs; were it
 * missing (a route registered outside that hook), the request is refused as unauthenticated, never served.
 */
export function callerOf(request: { readonly principal: Principal | null }): Principal {
  if (!request.principal) {
    throw new ApiError(
      401,
      'unauthenticated',
      'a valid bearer token is required (Authorization: Bearer <token>)',
      undefined,
      { 'www-authenticate': 'Bearer realm="soclab"' },
    );
  }
  return request.principal;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Bearer tokens, kept only as SHA-256 digests. A presented token is hashed and compared with every known digest
 * in constant time (no early exit), so neither the comparison nor the loop leaks which token nearly matched.
 */
export class TokenRegistry {
  private readonly entries: { digest: Buffer; principal: Principal }[];

  constructor(tokens: readonly TokenConfig[]) {
    this.entries = tokens.map((t) => {
      const digest = t.token_sha256
        ? Buffer.from(t.token_sha256, 'hex')
        : t.token !== undefined
          ? sha256(t.token)
          : undefined;
      // The config schema requires one of the two; a token with neither is refused here, never matched.
      if (!digest) throw new Error(`api token '${t.name}': give token or token_sha256`);
      return { digest, principal: { name: t.name, role: t.role, key: `t:${digest.toString('hex').slice(0, 16)}` } };
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /** The principal for an `Authorization` header value, or null (missing, malformed or unknown token). */
  authenticate(header: string | undefined): Principal | null {
    if (typeof header !== 'string') return null;
    const [, token] = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i.exec(header) ?? [];
    if (token === undefined) return null;
    const presented = sha256(token);
    let found: Principal | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, presented) && found === null) found = entry.principal;
    }
    return found;
  }
}

/**
 * With no token configured, the server makes one admin token and keeps it in `<data_dir>/api-token` (mode 0600),
 * reusing it on later starts. The token is never printed; the file path is.
 */
export function ensureGeneratedToken(dataDir: string): { file: string; token: TokenConfig; created: boolean } {
  makeDirectory(dataDir);
  const file = join(dataDir, 'api-token');
  let created = false;
  let token = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (token.length < 16) {
    token = randomBytes(24).toString('base64url');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    created = true;
  }
  chmodSync(file, 0o600);
  return { file, token: { name: 'admin', role: 'admin', token }, created };
}
