import { describe, expect, it } from 'vitest';
import { redactOptions } from '../../../src/runner/experiment.js';
import { looksSecret, REDACTED } from '../../../src/secrets/scrubber.js';

describe('experiment.json agent options: settings stay readable, credentials do not', () => {
  it('keeps authority_level (a setting) and redacts keys, tokens and auth values', () => {
    const out = redactOptions({
      mode: 'protected',
      authority_level: 'L3',
      authorization: 'Bearer abcdef123456',
      auth_token: 'tok-123456',
      api_key: 'sk-123456',
      nested: { authority: 'L2', password: 'hunter22' },
    });
    expect(out).toEqual({
      mode: 'protected',
      authority_level: 'L3',
      authorization: REDACTED,
      auth_token: REDACTED,
      api_key: REDACTED,
      nested: { authority: 'L2', password: REDACTED },
    });
  });

  it('names: authority is not secret-looking; auth, oauth and authorization still are', () => {
    expect(looksSecret('authority_level')).toBe(false);
    expect(looksSecret('AUTHORITY')).toBe(false);
    for (const name of ['auth', 'oauth_secret', 'authorization', 'BASIC_AUTH', 'auth_header']) {
      expect(looksSecret(name)).toBe(true);
    }
  });
});
