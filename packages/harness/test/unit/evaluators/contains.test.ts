import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('contains', () => {
  it('finds a substring from the option or from expected', async () => {
    expect((await run('contains', { substring: 'refund' }, 'Your refund is on its way')).passed).toBe(true);
    expect((await run('contains', {}, 'Your refund is on its way', { expected: 'refund' })).passed).toBe(true);
  });
  it('fails when the substring is absent', async () => {
    const r = await run('contains', { substring: 'refund' }, 'No money back');
    expect(r).toMatchObject({ passed: false, score: 0 });
    expect(r.explanation).toContain("does not contain text 'refund'");
  });
  it('is case-sensitive by default', async () => {
    expect((await run('contains', { substring: 'Refund' }, 'refund')).passed).toBe(false);
    expect((await run('contains', { substring: 'Refund', case_sensitive: false }, 'REFUND')).passed).toBe(true);
  });
  it('mode all needs every item and scores the share found', async () => {
    const r = await run('contains', { substring: ['a1', 'b2', 'c3', 'd4'] }, 'a1 b2 c3');
    expect(r.passed).toBe(false);
    expect(r.score).toBe(0.75);
    expect(r.details.missing).toEqual(['d4']);
  });
  it('mode any needs one item', async () => {
    expect((await run('contains', { substring: ['x', 'b2'], mode: 'any' }, 'a1 b2')).passed).toBe(true);
    expect((await run('contains', { substring: ['x', 'y'], mode: 'any' }, 'a1 b2')).passed).toBe(false);
  });
  it('regex mode searches patterns and rejects invalid ones at build time', async () => {
    expect((await run('contains', { substring: 'ORD-\\d+', is_regex: true }, 'order ORD-12')).passed).toBe(true);
    expect(() => build('contains', { substring: '([', is_regex: true })).toThrow(/invalid regular expression/);
  });
  it('fails an errored output', async () => {
    expect((await run('contains', { substring: 'x' }, { output: 'x', error: 'boom' })).passed).toBe(false);
  });
  it('empty output contains nothing but the empty string', async () => {
    expect((await run('contains', { substring: 'a' }, '')).passed).toBe(false);
    expect((await run('contains', { substring: '' }, '')).passed).toBe(true);
  });
});
