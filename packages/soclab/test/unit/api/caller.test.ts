import { describe, expect, it } from 'vitest';
import { callerOf, TokenRegistry } from '../../../src/api/auth.js';
import { ApiError } from '../../../src/api/errors.js';

describe('callerOf (the caller of a route with a permission)', () => {
  it('refuses a request that reached a handler without a principal: 401 with a Bearer challenge, never served', () => {
    let thrown: unknown;
    try {
      callerOf({ principal: null });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const e = thrown as ApiError;
    expect(e.statusCode).toBe(401);
    expect(e.code).toBe('unauthenticated');
    expect(e.headers?.['www-authenticate']).toBe('Bearer realm="soclab"');
  });

  it('returns the principal access control set', () => {
    const principal = { name: 'ada', role: 'admin' as const, key: 't:0123456789abcdef' };
    expect(callerOf({ principal })).toBe(principal);
  });
});

describe('TokenRegistry', () => {
  it('refuses a token entry with neither token nor token_sha256 (it could never be matched safely)', () => {
    expect(() => new TokenRegistry([{ name: 'nobody', role: 'viewer' }])).toThrow(
      "api token 'nobody': give token or token_sha256",
    );
  });

  it('answers only a well-formed bearer header carrying a known token', () => {
    const registry = new TokenRegistry([{ name: 'vera', role: 'viewer', token: 'viewer-token-0123456789' }]);
    expect(registry.authenticate(undefined)).toBeNull();
    expect(registry.authenticate('Bearer')).toBeNull();
    expect(registry.authenticate('Basic viewer-token-0123456789')).toBeNull();
    expect(registry.authenticate('Bearer wrong-token-0123456789')).toBeNull();
    expect(registry.authenticate('Bearer viewer-token-0123456789')?.name).toBe('vera');
  });
});
