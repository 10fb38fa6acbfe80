import { describe, expect, it } from 'vitest';
import { itemAt } from '../../../src/core/item-at.js';
import { cohenKappa, krippendorffAlpha } from '../../../src/stats/agreement.js';
import { calc, res } from './helpers.js';

/** A result whose llm_rubric evaluation carries a panel with the given pass/fail votes and scores. */
function panelResult(id: string, votes: boolean[]) {
  return res({
    test_id: id,
    evaluations: [
      {
        evaluator: 'llm_rubric',
        score: 0.5,
        passed: true,
        details: {
          judge: {
            provider: 'panel',
            cost: 0.001,
            usage: { input_tokens: 10, output_tokens: 2 },
            panel: votes.map((v, j) => ({ judge: `j${j}`, passed: v, score: v ? 0.9 : 0.1 })),
          },
        },
      },
    ],
  });
}

describe('judge_agreement', () => {
  const a = [true, true, false, false, true, false];
  const b = [true, false, false, false, true, true];
  const c = [true, true, false, true, true, false];
  it("uses Cohen's kappa for two judges", () => {
    const results = a.map((x, i) => panelResult(`c${i}`, [x, itemAt(b, i)]));
    const m = calc('judge_agreement', results);
    expect(m.value).toBeCloseTo(cohenKappa(a, b), 12);
    expect(m.formatted_value).toMatch(/κ/);
    expect(m.details.statistic).toBe('cohen_kappa');
    expect(m.sample_size).toBe(6);
  });
  it("uses Krippendorff's alpha for three or more, with interval alpha on scores", () => {
    const results = a.map((x, i) => panelResult(`c${i}`, [x, itemAt(b, i), itemAt(c, i)]));
    const m = calc('judge_agreement', results);
    expect(m.value).toBeCloseTo(krippendorffAlpha([a, b, c], 'nominal'), 12);
    expect(m.details.alpha_interval).not.toBeNull();
  });
  it('gives kappa a case-bootstrap 95% interval that a second, hand-written bootstrap reproduces', () => {
    const results = a.map((x, i) => panelResult(`c${i}`, [x, itemAt(b, i)]));
    const m = calc('judge_agreement', results);
    // Reference: mulberry32 draws of case indices, kappa per resample, type-7 percentiles, same seed.
    let state = 20260930 >>> 0;
    const rand = () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const ks: number[] = [];
    for (let it = 0; it < 2000; it++) {
      const idx = a.map(() => Math.floor(rand() * a.length));
      const k = cohenKappa(
        idx.map((i) => itemAt(a, i)),
        idx.map((i) => itemAt(b, i)),
      );
      if (Number.isFinite(k)) ks.push(k);
    }
    ks.sort((x, y) => x - y);
    const q = (p: number) => {
      const h = (ks.length - 1) * p;
      const lo = Math.floor(h);
      return itemAt(ks, lo) + (h - lo) * (itemAt(ks, Math.min(ks.length - 1, lo + 1)) - itemAt(ks, lo));
    };
    expect(m.interval?.lower).toBeCloseTo(q(0.025), 12);
    expect(m.interval?.upper).toBeCloseTo(q(0.975), 12);
    expect(m.interval?.lower as number).toBeLessThanOrEqual(m.value);
    expect(m.interval?.upper as number).toBeGreaterThanOrEqual(m.value);
    // a panel that always agrees: kappa 1 in every resample
    const same = a.map((x, i) => panelResult(`s${i}`, [x, x]));
    expect(calc('judge_agreement', same).interval).toMatchObject({ lower: 1, upper: 1 });
  });
  it('says n/a without a panel', () => {
    expect(calc('judge_agreement', [res()]).formatted_value).toBe('n/a');
  });
  it('judge cost from panels flows into the cost metric', () => {
    const m = calc('cost', [panelResult('x', [true, false])]);
    expect(m.details.judge_cost).toBeCloseTo(0.001);
  });
});

describe('judge bookkeeping survives the runner slimming results for metrics', () => {
  it('cost split and panel agreement are the same on slimmed results', async () => {
    const { slimResult } = await import('../../../src/runner/slim.js');
    const a = [true, true, false, false, true, false];
    const b = [true, false, false, false, true, true];
    const full = a.map((x, i) => panelResult(`c${i}`, [x, itemAt(b, i)]));
    const slim = full.map(slimResult);
    expect(calc('cost', slim).details.judge_cost).toBeCloseTo(calc('cost', full).details.judge_cost as number);
    expect(calc('judge_agreement', slim).value).toBeCloseTo(calc('judge_agreement', full).value);
    expect(calc('tokens', slim).details.judge_input_tokens).toBe(60);
  });
});
