import { describe, expect, it } from 'vitest';
import { cohenKappa, krippendorffAlpha, percentAgreement } from '../../../src/stats/agreement.js';

describe('cohenKappa', () => {
  it('matches the classic 2x2 example (kappa = 0.4)', () => {
    // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no
    const a = [...Array(20).fill('y'), ...Array(5).fill('y'), ...Array(10).fill('n'), ...Array(15).fill('n')];
    const b = [...Array(20).fill('y'), ...Array(5).fill('n'), ...Array(10).fill('y'), ...Array(15).fill('n')];
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 10);
  });
  it('is 1 for identical labels and negative for systematic disagreement', () => {
    expect(cohenKappa([1, 0, 1, 0], [1, 0, 1, 0])).toBe(1);
    expect(cohenKappa([1, 0, 1, 0], [0, 1, 0, 1])).toBe(-1);
    expect(cohenKappa(['a', 'a'], ['a', 'a'])).toBe(1);
  });
  it('rejects unequal lengths; empty is NaN', () => {
    expect(() => cohenKappa([1], [1, 2])).toThrow(RangeError);
    expect(cohenKappa([], [])).toBeNaN();
  });
});

describe('krippendorffAlpha', () => {
  // Krippendorff (2011) reliability data: 4 coders x 12 units with missing values.
  const _ = null;
  const data = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
  ];
  it('matches the published nominal and interval values', () => {
    expect(krippendorffAlpha(data, 'nominal')).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(data, 'interval')).toBeCloseTo(0.849, 3);
  });
  it('equals 1 on perfect agreement and is NaN with nothing to pair', () => {
    expect(
      krippendorffAlpha([
        [1, 2, 3],
        [1, 2, 3],
      ]),
    ).toBe(1);
    expect(
      krippendorffAlpha([
        [1, _],
        [_, 2],
      ]),
    ).toBeNaN();
  });
  it('interval level rejects non-numbers', () => {
    expect(() => krippendorffAlpha([['a'], ['b']], 'interval')).toThrow(TypeError);
  });
  it('percentAgreement counts unanimous items', () => {
    expect(
      percentAgreement([
        [1, 1, 0],
        [1, 0, 0],
        [1, 1, 0],
      ]),
    ).toBeCloseTo(2 / 3);
  });
});
