import { describe, expect, it } from 'vitest';
import { evaluatorRegistry } from '../../../src/evaluators/base.js';
import { build, run } from './helpers.js';

describe('not, threshold and weight (handled for every evaluator by createEvaluator)', () => {
  it('not inverts score and verdict', async () => {
    const r = await run('contains', { substring: 'error', not: true }, 'all good');
    expect(r).toMatchObject({ passed: true, score: 1 });
    expect(r.explanation).toMatch(/^NOT \(/);
    const r2 = await run('contains', { substring: 'good', not: true }, 'all good');
    expect(r2).toMatchObject({ passed: false, score: 0 });
  });
  it('not never turns an errored output into a pass', async () => {
    const r = await run('contains', { substring: 'x', not: true }, { error: 'agent crashed' });
    expect(r).toMatchObject({ passed: false, score: 0 });
  });
  it('not inverts a graded score', async () => {
    const r = await run('fuzzy_match', { value: 'abcd', not: true }, 'abcx');
    expect(r.score).toBeCloseTo(0.25);
  });
  it('threshold decides the verdict of a graded evaluator and says so', async () => {
    const lenient = await run('fuzzy_match', { value: 'kitten', threshold: 0.5 }, 'sitting');
    expect(lenient.score).toBeCloseTo(1 - 3 / 7);
    expect(lenient.passed).toBe(true);
    expect(lenient.explanation).toContain('>= threshold 0.5');
    const strict = await run('fuzzy_match', { value: 'kitten', threshold: 0.9 }, 'sitting');
    expect(strict.passed).toBe(false);
    expect(strict.explanation).toContain('< threshold 0.9');
  });
  it('weight is carried on the result', async () => {
    const r = await run('exact_match', {}, 'a', { expected: 'a' }, 2.5);
    expect(r.weight).toBe(2.5);
  });
  it('bad common options name the evaluator and field', () => {
    expect(() => build('exact_match', { threshold: 2 })).toThrow(/invalid options for 'exact_match': threshold/);
    expect(() => build('exact_match', { not: 'yes' })).toThrow(/not/);
  });
  it('every built-in has a one-line description', () => {
    const names = evaluatorRegistry.names();
    expect(names.length).toBeGreaterThanOrEqual(21);
    for (const p of evaluatorRegistry.list()) {
      // The example is a valid options set: list-plugins prints it and the conformance checks build with it.
      if (p.example) expect(p.options.safeParse(p.example).success, `${p.name} example`).toBe(true);
      else
        expect(p.options.safeParse({}).success, `${p.name} has a required option, so it needs an example`).toBe(true);
      expect(p.description.length, p.name).toBeGreaterThan(20);
      expect(p.description, p.name).not.toContain('\n');
    }
  });
  it('every built-in fails an errored output without throwing', async () => {
    for (const name of evaluatorRegistry.names()) {
      if (['llm_rubric', 'factuality', 'closed_qa', 'judge_panel'].includes(name)) continue;
      // Each plugin's own `example` options (required for one with a required option), so a new evaluator is
      // covered here without editing this file.
      const example = evaluatorRegistry.get(name).example ?? {};
      const r = await run(name, example, { output: 'x', error: 'boom' }, { expected: 'x' });
      expect(r.passed, name).toBe(false);
      expect(r.score, name).toBe(0);
    }
  });
});
