import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentOutput } from '../../../src/core/agent.js';
import type { EvaluationResult } from '../../../src/core/result.js';
import { defineEvaluator, result } from '../../../src/evaluators/base.js';
import { reasonOf } from '../../../src/reporters/support/text.js';
import { AgentRunner } from '../../../src/runner/agent-runner.js';
import { run, tc } from './helpers.js';

// An evaluator that returns whatever score the case's expected value says, built either with the
// `result()` helper or by hand (a plugin that skips the helper).
for (const style of ['helper', 'hand'] as const) {
  defineEvaluator({
    name: `t_score_${style}`,
    description: `test: score from expected (${style}-built result)`,
    options: z.strictObject({}),
    create: () => ({
      name: `t_score_${style}`,
      evaluate(testCase): EvaluationResult {
        const score = Number(testCase.expected);
        const input = { evaluator: `t_score_${style}`, score, passed: true, explanation: 'as told' };
        if (style === 'helper') return result(input);
        return { ...input, weight: 1, error: false, details: {} };
      },
    }),
  });
}

describe('defect 3: a score outside [0, 1] or NaN is an evaluator error, never clamped into a pass', () => {
  for (const style of ['helper', 'hand'] as const) {
    const name = `t_score_${style}`;
    it(`${style}-built: 2, -0.5 and NaN become evaluator errors that name the evaluator and the score`, async () => {
      for (const bad of [2, -0.5, Number.NaN]) {
        const r = await run(name, {}, 'x', { expected: bad });
        expect(r).toMatchObject({ passed: false, score: 0, error: true });
        expect(r.explanation).toBe(`evaluator error: evaluator '${name}' returned score ${bad}, outside [0, 1]`);
      }
    });
    it(`${style}-built: in-range scores and float error at the edges pass through`, async () => {
      expect(await run(name, {}, 'x', { expected: 0.5 })).toMatchObject({ score: 0.5, passed: true, error: false });
      expect((await run(name, {}, 'x', { expected: 1 + 1e-12 })).score).toBe(1);
      expect((await run(name, {}, 'x', { expected: -1e-12 })).score).toBe(0);
    });
  }

  it('the runner marks the case as an error whose reason names the evaluator', async () => {
    const runner = new AgentRunner(
      { run: async () => agentOutput({ output: 'x' }) },
      {
        evaluators: [{ name: 't_score_helper', options: {}, weight: 1 }],
      },
    );
    // evaluateCase returns the full result (what the journal and every report read).
    const over = await runner.evaluateCase(tc({ id: 'over', expected: 2 }));
    const fine = await runner.evaluateCase(tc({ id: 'fine', expected: 1 }));
    if (!over || !fine) throw new Error('not run');
    expect(over.status).toBe('error');
    expect(over.score).toBe(0);
    expect(reasonOf(over)).toMatch(/t_score_helper.*returned score 2, outside \[0, 1\]/);
    expect(fine.status).toBe('passed');
  });
});
