import { fileURLToPath } from 'node:url';
import { type AgentOutputInput, agentOutput } from '../../../src/core/agent.js';
import type { EvaluationResult } from '../../../src/core/result.js';
import { TestCase, type TestCaseInput } from '../../../src/core/testcase.js';
import { createEvaluator } from '../../../src/evaluators/base.js';
import '../../../src/evaluators/index.js';

/** Relative paths in options (modules, schema files) resolve against the scoring fixtures folder. */
export const fixtures = fileURLToPath(new URL('../../fixtures/scoring/', import.meta.url));
export const ctx = { baseDir: fixtures, env: {} };

/** A test case with sensible defaults. */
export function tc(partial: Partial<TestCaseInput> = {}): TestCase {
  return TestCase.parse({ id: 'c1', name: 'case 1', input: 'question', ...partial });
}

/** Run a registered evaluator through createEvaluator (as the runner does). */
export async function run(
  name: string,
  options: Record<string, unknown>,
  output: AgentOutputInput | string,
  testCase: Partial<TestCaseInput> = {},
  weight = 1,
): Promise<EvaluationResult> {
  const ev = createEvaluator({ name, options, weight }, ctx);
  const out = typeof output === 'string' ? agentOutput({ output }) : agentOutput(output);
  return ev.evaluate(tc(testCase), out);
}

/** Build only (for option validation tests). */
export function build(name: string, options: Record<string, unknown>) {
  return createEvaluator({ name, options, weight: 1 }, ctx);
}
