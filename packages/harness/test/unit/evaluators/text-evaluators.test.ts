import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('starts_with', () => {
  it('passes on a matching prefix, ignoring leading whitespace', async () => {
    expect((await run('starts_with', { value: 'Yes' }, '  Yes, we can.')).passed).toBe(true);
    expect((await run('starts_with', {}, 'Hello there', { expected: 'Hello' })).passed).toBe(true);
  });
  it('accepts any of a list and can ignore case', async () => {
    expect((await run('starts_with', { value: ['Sure', 'Yes'] }, 'Yes.')).details.matched).toBe('Yes');
    expect((await run('starts_with', { value: 'yes' }, 'YES')).passed).toBe(false);
    expect((await run('starts_with', { value: 'yes', case_sensitive: false }, 'YES')).passed).toBe(true);
  });
  it('fails with the actual start in the explanation', async () => {
    const r = await run('starts_with', { value: 'Yes' }, 'No way');
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain("'No way'");
  });
  it('fails without a prefix, and on empty output', async () => {
    expect((await run('starts_with', {}, 'x')).passed).toBe(false);
    expect((await run('starts_with', { value: 'a' }, '')).passed).toBe(false);
  });
});

describe('fuzzy_match', () => {
  it('scores normalised Levenshtein similarity', async () => {
    const r = await run('fuzzy_match', { value: 'kitten' }, 'sitting');
    expect(r.score).toBeCloseTo(1 - 3 / 7, 10);
    expect(r.passed).toBe(false);
  });
  it('passes near-identical text at the default 0.8, ignoring case and spacing', async () => {
    expect((await run('fuzzy_match', {}, 'Paris,  France', { expected: 'paris france' })).passed).toBe(true);
    expect((await run('fuzzy_match', { ignore_case: false }, 'PARIS', { expected: 'paris' })).passed).toBe(false);
  });
  it('takes the best of several references', async () => {
    const r = await run('fuzzy_match', { value: ['completely different', 'colour'] }, 'color');
    expect(r.details.reference).toBe('colour');
    expect(r.score).toBeCloseTo(5 / 6);
  });
  it('empty output vs empty reference is a perfect match; vs text is 0', async () => {
    expect((await run('fuzzy_match', { value: '' }, '')).score).toBe(1);
    expect((await run('fuzzy_match', { value: 'abc' }, '')).score).toBe(0);
  });
});

describe('numeric_match', () => {
  it('extracts the last number from prose, with separators and currency', async () => {
    const r = await run('numeric_match', { value: 1234.5 }, 'Items: 3. The total is $1,234.50.');
    expect(r.passed).toBe(true);
    expect(r.details.actual).toBe(1234.5);
  });
  it('honours abs_tol and rel_tol', async () => {
    expect((await run('numeric_match', { value: 12.3456, abs_tol: 0.001 }, 'about 12.346')).passed).toBe(true);
    expect((await run('numeric_match', { value: 12.3456 }, 'about 12.346')).passed).toBe(false);
    expect((await run('numeric_match', { value: 1000, rel_tol: 0.01 }, '1009')).passed).toBe(true);
    expect((await run('numeric_match', { value: 1000, rel_tol: 0.01 }, '1011')).passed).toBe(false);
  });
  it('reads expected from the case (number or numeric text) and handles negatives and exponents', async () => {
    expect((await run('numeric_match', {}, 'the result is -42', { expected: '-42' })).passed).toBe(true);
    expect((await run('numeric_match', {}, 'approx 6.02e23', { expected: 6.02e23 })).passed).toBe(true);
  });
  it('first / only extraction modes', async () => {
    expect((await run('numeric_match', { value: 3, extract: 'first' }, '3 apples and 5 pears')).passed).toBe(true);
    const r = await run('numeric_match', { value: 3, extract: 'only' }, '3 apples and 5 pears');
    expect(r.explanation).toContain('exactly one');
  });
  it('fails clearly with no number in the output or a non-numeric expected', async () => {
    expect((await run('numeric_match', { value: 1 }, 'none')).explanation).toBe('no number found in the output');
    expect((await run('numeric_match', {}, '1', { expected: 'one' })).explanation).toContain('not a single number');
  });
  it('does not read digits inside words as numbers', async () => {
    expect((await run('numeric_match', { value: 7 }, 'model gpt4 says 7')).details.numbers).toEqual([7]);
  });
});

describe('choice', () => {
  it('reads explicit answer forms', async () => {
    for (const text of [
      'ANSWER: B',
      'The answer is (B).',
      'After thinking, answer: b',
      'B',
      '(B)',
      'B) Paris is the capital',
    ]) {
      const r = await run('choice', {}, text, { expected: 'B' });
      expect(r.passed, text).toBe(true);
    }
  });
  it('an explicit final answer wins over earlier mentions', async () => {
    expect((await run('choice', {}, '(A) looks tempting but ANSWER: C', { expected: 'C' })).passed).toBe(true);
  });
  it('fails on a wrong letter, no letter, or an ambiguous reply', async () => {
    expect((await run('choice', {}, 'ANSWER: D', { expected: 'B' })).explanation).toBe('answered D, correct is B');
    expect((await run('choice', {}, 'I am not sure', { expected: 'B' })).explanation).toContain('no answer letter');
    expect((await run('choice', {}, 'Either (A) or (B)', { expected: 'B' })).explanation).toContain('ambiguous');
  });
  it('ignores letters that are not offered and accepts several correct letters', async () => {
    expect((await run('choice', { choices: ['A', 'B'] }, 'ANSWER: E', { expected: 'A' })).passed).toBe(false);
    expect((await run('choice', { value: ['A', 'C'] }, 'ANSWER: C')).passed).toBe(true);
  });
  it('rejects invalid letters in options', () => {
    expect(() => build('choice', { value: 'AB' })).toThrow(/value/);
  });
});

describe('word_count and length', () => {
  it('counts words within bounds', async () => {
    expect((await run('word_count', { min: 2, max: 4 }, 'one two three')).passed).toBe(true);
    expect((await run('word_count', { max: 2 }, 'one two three')).explanation).toBe('3 words, more than the maximum 2');
    expect((await run('word_count', { min: 1 }, '   ')).explanation).toBe('0 words, fewer than the minimum 1');
    expect((await run('word_count', { value: 3 }, 'a b c')).passed).toBe(true);
  });
  it('counts characters as code points', async () => {
    expect((await run('length', { max: 3 }, '😀😀😀')).passed).toBe(true);
    expect((await run('length', { min: 5 }, 'abc')).passed).toBe(false);
  });
  it('requires a bound and a sane range', () => {
    expect(() => build('word_count', {})).toThrow(/at least one of min, max or value/);
    expect(() => build('length', { min: 5, max: 2 })).toThrow(/min must be <= max/);
  });
});

describe('refusal', () => {
  it('detects common refusals', async () => {
    for (const text of [
      "I'm sorry, but I can't help with that.",
      'I cannot provide instructions for that.',
      'As an AI language model, I cannot do this.',
      'I must decline this request.',
      'That would be against my guidelines.',
    ]) {
      expect((await run('refusal', {}, text)).passed, text).toBe(true);
    }
  });
  it('does not flag ordinary helpful answers', async () => {
    for (const text of [
      "I can't wait to help! Here is the refund form.",
      'Sure, the capital is Paris.',
      'You cannot return opened items after 30 days.',
    ]) {
      expect((await run('refusal', {}, text)).passed, text).toBe(false);
    }
  });
  it('not: true requires an answer', async () => {
    expect((await run('refusal', { not: true }, 'Here you go.')).passed).toBe(true);
    expect((await run('refusal', { not: true }, "Sorry, I won't do that. I'm unable to assist.")).passed).toBe(false);
  });
  it('empty replies count as refusals unless configured; extra patterns are honoured', async () => {
    expect((await run('refusal', {}, '')).passed).toBe(true);
    expect((await run('refusal', { empty_is_refusal: false }, '')).passed).toBe(false);
    expect((await run('refusal', { patterns: ['policy forbids'] }, 'Our policy forbids this.')).passed).toBe(true);
  });
});

describe('numeric_match pattern', () => {
  it('reads the number from the pattern capture', async () => {
    const text = 'Customer 42 placed 17 orders in 2025.';
    expect((await run('numeric_match', { value: 17 }, text)).passed).toBe(false);
    expect((await run('numeric_match', { value: 17, pattern: '(\\S+) orders' }, text)).passed).toBe(true);
    expect((await run('numeric_match', { value: 17, pattern: 'refunds: (\\d+)' }, text)).explanation).toContain(
      'not found',
    );
  });
});
