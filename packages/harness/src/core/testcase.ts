import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/** An evaluator applied to a case: registry name, options, weight in the case score. */
export const EvaluatorConfig = z.strictObject({
  name: z.string().min(1),
  options: JsonObject.default({}),
  weight: z.number().min(0).default(1),
  /** The harness's own negation and pass threshold (never a plugin option of the same name). */
  not: z.boolean().optional(),
  threshold: z.number().min(0).max(1).optional(),
});
export type EvaluatorConfig = z.infer<typeof EvaluatorConfig>;

/** One test case: an input for the agent and how to judge its output. */
export const TestCase = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().nullable().default(null),
  input: z.union([z.string(), JsonObject]),
  expected: z.unknown().optional(),
  evaluators: z.array(EvaluatorConfig).default([]),
  tags: z.array(z.string()).default([]),
  metadata: JsonObject.default({}),
  /** Seconds; overrides the run's per-case timeout. */
  timeout: z.number().positive().nullable().default(null),
  /** How many times to run this case; overrides the run's --repeat. */
  repeat: z.number().int().min(1).nullable().default(null),
  /** Variables for adapter templates (e.g. HTTP body). */
  vars: JsonObject.default({}),
});
export type TestCase = z.infer<typeof TestCase>;
export type TestCaseInput = z.input<typeof TestCase>;

/** The input as text: strings unchanged, objects as compact JSON. */
export function inputText(testCase: Pick<TestCase, 'input'>): string {
  return typeof testCase.input === 'string' ? testCase.input : JSON.stringify(testCase.input);
}
