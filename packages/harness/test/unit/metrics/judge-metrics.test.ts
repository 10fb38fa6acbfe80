import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slimResult } from '../../../src/runner/slim.js';
import { validateSuite } from '../../../src/suites/loader.js';
import { formatIssue } from '../../../src/suites/positions.js';
import '../../../src/adapters/index.js';
import '../../../src/evaluators/index.js';
import { calc, res } from './helpers.js';

/** A run judged by llm_rubric: `error` means the judge gave no usable verdict. */
function judged(
  id: string,
  o: { score: number; passed: boolean; error?: boolean; repeat?: number; hash?: string; unpriced?: boolean },
) {
  const status = o.error ? 'error' : o.passed ? 'passed' : 'failed';
  // Metrics see slimmed results, as in a real run.
  return slimResult(
    res({
      test_id: id,
      repeat: o.repeat ?? 0,
      status,
      score: o.score,
      output: { output: 'an answer' },
      evaluations: [
        {
          evaluator: 'llm_rubric',
          score: o.score,
          passed: o.passed,
          error: o.error ?? false,
          details: {
            judge: {
              provider: 'openai',
              cost: o.unpriced ? 0 : 0.002,
              cost_unpriced: o.unpriced ?? false,
              usage: { input_tokens: 100, output_tokens: 20, estimated: false },
              calls: 1,
              output_sha256: o.hash ?? 'h',
            },
          },
        },
      ],
    }),
  );
}

describe('metrics report judge errors explicitly', () => {
  it('degenerate: accuracy leaves judge errors out of the mean (not 0) and counts them', () => {
    const results = [
      judged('a', { score: 1, passed: true }),
      judged('b', { score: 0.5, passed: true }),
      judged('c', { score: 0, passed: false, error: true }),
    ];
    const m = calc('accuracy', results);
    expect(m.value).toBeCloseTo(0.75, 12); // (1 + 0.5) / 2, not (1 + 0.5 + 0) / 3
    expect(m.details.judge_errors).toBe(1);
    expect(m.sample_size).toBe(2);
    expect(m.formatted_value).toBe('0.75 (1 judge error(s) excluded)');
    // an agent error is still the agent's 0
    const agentError = res({ test_id: 'd', status: 'error', score: 0, output: { error: 'crashed' } });
    expect(calc('accuracy', [...results, agentError]).value).toBeCloseTo(0.5, 12);
  });
  it('error_rate keeps agent errors as its value and shows judge errors beside them', () => {
    const results = [
      judged('a', { score: 1, passed: true }),
      judged('b', { score: 0, passed: false, error: true }),
      judged('c', { score: 0, passed: false, error: true }),
      res({ test_id: 'd', status: 'error', output: { error: 'timed out' } }),
    ];
    const m = calc('error_rate', results);
    expect(m.value).toBeCloseTo(0.25, 12);
    expect(m.details).toMatchObject({ errors: 1, judge_errors: 2, judge_error_rate: 0.5 });
    expect(m.formatted_value).toMatch(/\(\+2 judge error\(s\)\)$/);
  });
  it('cost flags an unpriced judge instead of presenting a $0 judge cost as complete', () => {
    const priced = calc('cost', [judged('a', { score: 1, passed: true })]);
    expect(priced.details).toMatchObject({ judge_unpriced_runs: 0, judge_cost_complete: true });
    const m = calc('cost', [
      judged('a', { score: 1, passed: true }),
      judged('b', { score: 1, passed: true, unpriced: true }),
    ]);
    expect(m.details).toMatchObject({ judge_unpriced_runs: 1, judge_cost_complete: false });
    expect(m.formatted_value).toMatch(/incomplete: 1 run\(s\) with an unpriced judge/);
    // the agent-only view is not affected by the judge's missing price
    expect(
      calc('cost', [judged('b', { score: 1, passed: true, unpriced: true })], { include: 'agent' }).formatted_value,
    ).not.toMatch(/incomplete/);
  });
});

describe('flaky_cases tells judge variance from agent variance', () => {
  it('a deterministic agent (same output every repeat) with a wavering judge is not counted as a flaky agent', () => {
    const results = [
      judged('steady', { score: 1, passed: true, repeat: 0, hash: 'same' }),
      judged('steady', { score: 0, passed: false, repeat: 1, hash: 'same' }),
      judged('steady', { score: 1, passed: true, repeat: 2, hash: 'same' }),
      judged('wobbly', { score: 1, passed: true, repeat: 0, hash: 'one' }),
      judged('wobbly', { score: 0, passed: false, repeat: 1, hash: 'two' }),
    ];
    const m = calc('flaky_cases', results);
    expect(m.value).toBe(1);
    expect(m.details).toMatchObject({ agent_flaky: 1, judge_flaky: 1 });
    const cases = m.details.cases as { test_id: string; cause: string }[];
    expect(Object.fromEntries(cases.map((c) => [c.test_id, c.cause]))).toEqual({ steady: 'judge', wobbly: 'agent' });
    expect(m.formatted_value).toBe("1 of 2 (+1 where only the judge's verdict changed)");
  });
});

describe('suite validation', () => {
  it('two entries for one metric are a validation error at the second, not a silent overwrite', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-metrics-'));
    writeFileSync(
      join(d, 'suite.yaml'),
      [
        'version: "1.0"',
        'name: m',
        'agent: { adapter: echo }',
        'metrics:',
        '  - cost',
        '  - accuracy',
        '  - { name: cost, options: { include: judge } }',
        'tests: [{ id: a, input: x, expected: x }]',
      ].join('\n'),
    );
    const { issues } = await validateSuite(join(d, 'suite.yaml'));
    expect(issues.map(formatIssue)).toEqual([
      expect.stringMatching(/suite\.yaml:7:5: metrics\.2: metric 'cost' is listed twice \(also metrics\[0\]\)/),
    ]);
  });
});
