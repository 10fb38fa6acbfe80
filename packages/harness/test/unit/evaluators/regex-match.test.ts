import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('regex_match', () => {
  it('searches anywhere and records the match', async () => {
    const r = await run('regex_match', { pattern: 'ORD-[0-9]{5}' }, 'Order ORD-12345 confirmed');
    expect(r.passed).toBe(true);
    expect(r.details.match).toBe('ORD-12345');
  });
  it('fails when nothing matches', async () => {
    const r = await run('regex_match', { pattern: 'ORD-[0-9]{5}' }, 'Order 12345');
    expect(r).toMatchObject({ passed: false, score: 0 });
    expect(r.details.match).toBeNull();
  });
  it('full_match requires the whole output', async () => {
    expect((await run('regex_match', { pattern: 'hello', full_match: true }, 'hello world')).passed).toBe(false);
    expect((await run('regex_match', { pattern: 'hello.*', full_match: true }, 'hello world')).passed).toBe(true);
    expect((await run('regex_match', { pattern: '', full_match: true }, '')).passed).toBe(true);
    // alternation must not let a prefix alternative satisfy a full match
    expect((await run('regex_match', { pattern: 'a|ab', full_match: true }, 'ab')).passed).toBe(true);
    // with the m flag, $ means end of line, but full_match still means the whole text
    expect((await run('regex_match', { pattern: 'a$', full_match: true, flags: 'm' }, 'a\nb')).passed).toBe(false);
  });
  it('case_sensitive false and flags', async () => {
    expect((await run('regex_match', { pattern: 'hello' }, 'HELLO')).passed).toBe(false);
    expect((await run('regex_match', { pattern: 'hello', case_sensitive: false }, 'HELLO')).passed).toBe(true);
    expect((await run('regex_match', { pattern: '^b$', flags: 'm' }, 'a\nb')).passed).toBe(true);
  });
  it('uses expected as the pattern when none is given', async () => {
    expect((await run('regex_match', {}, 'abc123', { expected: '\\d{3}' })).passed).toBe(true);
    const r = await run('regex_match', {}, 'abc');
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('no pattern');
  });
  it('rejects an invalid pattern or flag at build time', () => {
    expect(() => build('regex_match', { pattern: '(' })).toThrow(/pattern: invalid regular expression/);
    expect(() => build('regex_match', { pattern: 'a', flags: 'x' })).toThrow(/flags/);
  });
  it('an errored output fails before the pattern is used', async () => {
    const r = await run('regex_match', { pattern: '.*' }, { error: 'crashed' });
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('crashed');
  });
});
