import { describe, expect, it } from 'vitest';
import { TokenRegistry } from '../../../../src/api/auth.js';
import { decideAccess, principalLookup } from '../../../../src/api/plugins/access-control.js';

const registry = new TokenRegistry([
  { name: 'vera', role: 'viewer', token: 'viewer-token-0123456789' },
  { name: 'otto', role: 'operator', token: 'operator-token-0123456789' },
  { name: 'ada', role: 'admin', token: 'admin-token-0123456789' },
]);
const lookup = principalLookup(registry);
const principal = (token: string) => lookup({ headers: { authorization: `Bearer ${token}` }, raw: {} as never });

describe('decideAccess', () => {
  it('refuses a caller without a valid token on every rule but public', () => {
    for (const rule of ['read', 'run', 'approve', 'admin', undefined] as const) {
      expect(decideAccess(rule, null)).toEqual({ allowed: false, status: 401 });
    }
    expect(decideAccess('public', null)).toEqual({ allowed: true });
  });

  it('a route that declares no rule is for admins only (deny by default)', () => {
    expect(decideAccess(undefined, principal('viewer-token-0123456789'))).toEqual({
      allowed: false,
      status: 403,
      role: 'viewer',
      permission: 'admin',
    });
    expect(decideAccess(undefined, principal('operator-token-0123456789'))).toMatchObject({ status: 403 });
    expect(decideAccess(undefined, principal('admin-token-0123456789'))).toEqual({ allowed: true });
  });

  it('allows exactly what the role has', () => {
    const viewer = principal('viewer-token-0123456789');
    expect(decideAccess('read', viewer)).toEqual({ allowed: true });
    expect(decideAccess('run', viewer)).toMatchObject({ allowed: false, status: 403, permission: 'run' });
    const operator = principal('operator-token-0123456789');
    expect(decideAccess('run', operator)).toEqual({ allowed: true });
    expect(decideAccess('approve', operator)).toMatchObject({ allowed: false, status: 403, permission: 'approve' });
  });
});

describe('principalLookup', () => {
  it('reads the header once per request and finds nobody for a wrong or malformed token', () => {
    expect(lookup({ headers: { authorization: 'Bearer not-a-known-token' }, raw: {} as never })).toBeNull();
    expect(lookup({ headers: { authorization: 'Basic dmlld2VyLXRva2Vu' }, raw: {} as never })).toBeNull();
    expect(lookup({ headers: {}, raw: {} as never })).toBeNull();
    const raw = {} as never;
    const headers: { authorization?: string } = { authorization: 'Bearer admin-token-0123456789' };
    expect(lookup({ headers, raw })?.name).toBe('ada');
    // The same request asks again (the rate limit, then the access hook): the first answer stands.
    headers.authorization = 'Bearer viewer-token-0123456789';
    expect(lookup({ headers, raw })?.name).toBe('ada');
  });
});
