import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('exact_match', () => {
  it('passes on equal text after trimming by default', async () => {
    const r = await run('exact_match', {}, '  Paris\n', { expected: 'Paris' });
    expect(r).toMatchObject({ passed: true, score: 1, evaluator: 'exact_match' });
  });
  it('fails on different text and says what differed', async () => {
    const r = await run('exact_match', {}, 'London', { expected: 'Paris' });
    expect(r.passed).toBe(false);
    expect(r.score).toBe(0);
    expect(r.explanation).toContain("expected 'Paris', got 'London'");
  });
  it('is case-sensitive unless ignore_case', async () => {
    expect((await run('exact_match', {}, 'paris', { expected: 'Paris' })).passed).toBe(false);
    expect((await run('exact_match', { ignore_case: true }, 'paris', { expected: 'Paris' })).passed).toBe(true);
  });
  it('keeps whitespace when strip_whitespace is false', async () => {
    expect((await run('exact_match', { strip_whitespace: false }, 'Paris ', { expected: 'Paris' })).passed).toBe(false);
  });
  it('compares numbers and objects through their text form', async () => {
    expect((await run('exact_match', {}, '4', { expected: 4 })).passed).toBe(true);
    expect((await run('exact_match', {}, { output: { a: 1 } }, { expected: { a: 1 } })).passed).toBe(true);
  });
  it('option value overrides the case expected', async () => {
    expect((await run('exact_match', { value: 'yes' }, 'yes', { expected: 'no' })).passed).toBe(true);
  });
  it('fails an errored output even when it would match', async () => {
    const r = await run('exact_match', {}, { output: 'Paris', error: 'timeout' }, { expected: 'Paris' });
    expect(r).toMatchObject({ passed: false, score: 0 });
    expect(r.explanation).toContain('timeout');
  });
  it('passes by default with no expected value, and says so', async () => {
    const r = await run('exact_match', {}, 'anything');
    expect(r.passed).toBe(true);
    expect(r.details.skipped).toBe(true);
  });
  it('handles empty output against empty expected', async () => {
    expect((await run('exact_match', {}, '', { expected: '' })).passed).toBe(true);
    expect((await run('exact_match', {}, '', { expected: 'x' })).passed).toBe(false);
  });
  it('rejects unknown or mistyped options with the field path', () => {
    expect(() => build('exact_match', { ignore_case: 'yes' })).toThrow(/ignore_case/);
    expect(() => build('exact_match', { ignorecase: true })).toThrow(/ignorecase/);
  });
});
