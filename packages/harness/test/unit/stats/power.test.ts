import { describe, expect, it } from 'vitest';
import { minimumDetectableDifference, powerHint, sampleSizeTwoProportions } from '../../../src/stats/power.js';

describe('power', () => {
  it('sample size matches the textbook value for 50% vs 70% (93 per arm)', () => {
    expect(Math.ceil(sampleSizeTwoProportions(0.5, 0.7))).toBe(93);
  });
  it('minimum detectable difference inverts the sample size', () => {
    expect(minimumDetectableDifference(93)).toBeCloseTo(0.2, 2);
    const d = minimumDetectableDifference(400, { baseline: 0.8 });
    expect(sampleSizeTwoProportions(0.8, 0.8 - d)).toBeCloseTo(400, 3);
  });
  it('shrinks with more cases and is capped at 1', () => {
    expect(minimumDetectableDifference(1000)).toBeLessThan(minimumDetectableDifference(100));
    expect(minimumDetectableDifference(0)).toBe(1);
    expect(minimumDetectableDifference(2)).toBe(1);
  });
  it('gives a readable hint', () => {
    const h = powerHint(50);
    expect(h.message).toContain('with 50 case(s) per run');
    expect(h.message).toMatch(/\d+\.\d points/);
    expect(powerHint(0).message).toContain('no cases');
  });
});
