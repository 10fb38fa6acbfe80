import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentOutput } from '../../../src/core/agent.js';
import {
  createEvaluator,
  defineEvaluator,
  evaluatorRegistry,
  result,
  splitEvaluatorOptions,
} from '../../../src/evaluators/base.js';
import { build, ctx, run, tc } from './helpers.js';

// The seed's fuzzy_match example: a plugin with its own `threshold` option (character-set overlap).
defineEvaluator({
  name: 't_seed_fuzzy',
  description: 'test: the seed guide fuzzy_match, with its own threshold option',
  options: z.strictObject({ threshold: z.number().default(0.8) }),
  create: ({ threshold }) => ({
    name: 't_seed_fuzzy',
    evaluate(testCase, output) {
      const expected = new Set(String(testCase.expected ?? '').toLowerCase());
      const actual = new Set(String(output.output).toLowerCase());
      const overlap = expected.size === 0 ? 1 : [...expected].filter((c) => actual.has(c)).length / expected.size;
      return result({
        evaluator: 't_seed_fuzzy',
        score: overlap,
        passed: overlap >= threshold,
        explanation: `overlap ${overlap.toFixed(2)} (threshold ${threshold})`,
        details: { threshold },
      });
    },
  }),
});

describe("defect 4: an evaluator's own `threshold` option reaches the plugin", () => {
  it('options.threshold goes to a plugin that declares it, and the harness does not apply its own', async () => {
    // expected 'abcd' vs output 'abxy': overlap 0.5.
    const low = await run('t_seed_fuzzy', { threshold: 0.4 }, 'abxy', { expected: 'abcd' });
    expect(low.details.threshold).toBe(0.4);
    expect(low.passed).toBe(true);
    expect(low.explanation).not.toContain('>= threshold'); // no harness threshold wrapper
    const high = await run('t_seed_fuzzy', { threshold: 0.9 }, 'abxy', { expected: 'abcd' });
    expect(high.details.threshold).toBe(0.9);
    expect(high.passed).toBe(false);
    // Without it the plugin's default applies.
    expect((await run('t_seed_fuzzy', {}, 'abxy', { expected: 'abcd' })).details.threshold).toBe(0.8);
  });

  it("the harness's threshold next to `name` is separate and both apply", async () => {
    const ev = createEvaluator({ name: 't_seed_fuzzy', options: { threshold: 0.4 }, weight: 1, threshold: 0.9 }, ctx);
    const r = await ev.evaluate(tc({ expected: 'abcd' }), agentOutput({ output: 'abxy' }));
    expect(r.details.threshold).toBe(0.4); // the plugin got its own value
    expect(r.passed).toBe(false); // the harness's 0.9 decided the verdict
    expect(r.explanation).toContain('< threshold 0.9');
  });

  it('for a plugin without its own threshold, options.threshold is still the harness option', async () => {
    const r = await run('fuzzy_match', { value: 'kitten', threshold: 0.5 }, 'sitting');
    expect(r.passed).toBe(true);
    expect(r.explanation).toContain('>= threshold 0.5');
    expect(() => build('exact_match', { threshold: 2 })).toThrow(/threshold/);
  });

  it('splitEvaluatorOptions keeps declared keys for the plugin', () => {
    const plugin = evaluatorRegistry.get('t_seed_fuzzy');
    expect(splitEvaluatorOptions(plugin, { options: { threshold: 0.3, not: true } })).toEqual({
      common: { not: true },
      own: { threshold: 0.3 },
    });
  });
});
