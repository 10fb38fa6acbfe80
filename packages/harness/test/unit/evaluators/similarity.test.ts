import { describe, expect, it } from 'vitest';
import { itemAt } from '../../../src/core/item-at.js';
import { sentenceBleu } from '../../../src/evaluators/bleu.js';
import { tokenF1 } from '../../../src/evaluators/f1.js';
import { lcsLength, rougeL } from '../../../src/evaluators/rouge-l.js';
import { run } from './helpers.js';

describe('f1', () => {
  it('computes SQuAD token F1 (articles and punctuation ignored)', () => {
    const s = tokenF1('The cat sat on the mat.', 'a cat sat');
    // prediction tokens: cat sat on mat (4); reference: cat sat (2); common 2
    expect(s.precision).toBeCloseTo(0.5);
    expect(s.recall).toBe(1);
    expect(s.f1).toBeCloseTo(2 / 3);
  });
  it('uses the best reference and the default 0.5 pass mark', async () => {
    const r = await run('f1', {}, 'Barack Obama', { expected: ['George Bush', 'Obama'] });
    expect(r.score).toBeCloseTo(2 / 3);
    expect(r.passed).toBe(true);
    expect((await run('f1', {}, 'nothing shared', { expected: 'Obama' })).score).toBe(0);
  });
});

describe('rouge_l', () => {
  it('uses the longest common subsequence', () => {
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'c', 'd', 'e'])).toBe(3);
    const s = rougeL('police killed the gunman', 'police kill the gunman');
    // LCS = police the gunman (3) over 4 and 4 tokens
    expect(s.f).toBeCloseTo(0.75);
  });
  it('scores and passes through the evaluator', async () => {
    const r = await run('rouge_l', {}, 'the quick brown fox jumps', { expected: 'the quick brown fox jumped over' });
    expect(r.score).toBeGreaterThan(0.5);
    expect(r.passed).toBe(true);
    expect((await run('rouge_l', {}, 'unrelated words', { expected: 'the quick fox' })).score).toBe(0);
  });
});

describe('bleu', () => {
  it('is 1 for an identical sentence and lower for a partial one', () => {
    const ref = 'the cat is on the mat';
    expect(sentenceBleu(ref, [ref]).bleu).toBeCloseTo(1);
    const partial = sentenceBleu('the cat sat on the mat', [ref]).bleu;
    expect(partial).toBeGreaterThan(0.2);
    expect(partial).toBeLessThan(0.8);
  });
  it('clips repeated words (the classic "the the the" example)', () => {
    const s = sentenceBleu('the the the the the the the', ['the cat is on the mat'], 1);
    expect(s.precisions[0]).toBeCloseTo(2 / 7);
  });
  it('applies the brevity penalty to short outputs', () => {
    const s = sentenceBleu('the cat', ['the cat is on the mat']);
    expect(s.brevity_penalty).toBeCloseTo(Math.exp(1 - 6 / 2));
  });
  it('passes at 0.5 by default and honours max_n', async () => {
    expect((await run('bleu', {}, 'the cat is on the mat', { expected: 'the cat is on the mat' })).passed).toBe(true);
    const r1 = await run('bleu', { max_n: 1 }, 'mat the on is cat the', { expected: 'the cat is on the mat' });
    expect(r1.score).toBeCloseTo(1);
  });
});

describe('editDistance (bit-parallel) against the plain dynamic programme', () => {
  it('agrees on random strings across block boundaries, including non-ASCII', async () => {
    const { editDistance, editDistanceDp } = await import('../../../src/evaluators/support/text.js');
    const { seededRandom } = await import('../../../src/stats/rng.js');
    const r = seededRandom(7);
    const alphabets = ['ab', 'abcdef', 'abcdefghijklmnopqrstuvwxyz éü😀'];
    for (let t = 0; t < 3000; t++) {
      const alpha = itemAt(alphabets, t % 3);
      const mk = () =>
        Array.from({ length: Math.floor(r() * (t % 4 === 0 ? 140 : 40)) }, () =>
          itemAt(alpha, Math.floor(r() * alpha.length)),
        ).join('');
      const a = mk();
      const b = mk();
      expect(editDistance(a, b), JSON.stringify([a, b])).toBe(editDistanceDp(a, b));
    }
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
