import { describe, expect, it } from 'vitest';
import { itemAt } from '../../../src/core/item-at.js';

describe('itemAt (bounded index reads)', () => {
  it('refuses an index outside the array, naming the index and the length', () => {
    expect(() => itemAt([], 0)).toThrow(new RangeError('index 0 is out of range (length 0)'));
    expect(() => itemAt(['a', 'b'], 2)).toThrow(/index 2 is out of range \(length 2\)/);
    expect(() => itemAt(['a', 'b'], -1)).toThrow(/index -1/);
    expect(() => itemAt(new Float64Array(3), 1.5)).toThrow(/index 1.5/);
    expect(() => itemAt([1], Number.NaN)).toThrow(RangeError);
  });

  it('returns the element at an index in range, typed arrays and strings included', () => {
    expect(itemAt(['a', 'b'], 1)).toBe('b');
    expect(itemAt(Float64Array.of(0.5, 2), 0)).toBe(0.5);
    expect(itemAt('xyz', 2)).toBe('z');
  });

  it('returns an element that is itself undefined when the array holds one (in range is not the same as defined)', () => {
    expect(itemAt([undefined, 1], 0)).toBeUndefined();
  });
});
