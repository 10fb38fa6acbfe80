import { z } from 'zod';
import { MetricDisplay, ThresholdRule } from '../core/experiment.js';

const JsonObject = z.record(z.string(), z.unknown());

/** An evaluator in a suite: a bare registry name, or name + options + weight. */
export const SuiteEvaluator = z.union([
  z.string().min(1),
  z.strictObject({
    name: z.string().min(1).describe('Registry name, e.g. exact_match'),
    options: JsonObject.optional().describe("The plugin's own options"),
    weight: z.number().min(0).optional().describe('Weight in the case score (default 1)'),
    not: z.boolean().optional().describe("Negate the verdict (the harness's option; never passed to the plugin)"),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("Pass when the score reaches this (the harness's option; never passed to the plugin)"),
  }),
]);
export type SuiteEvaluator = z.infer<typeof SuiteEvaluator>;

/** A metric in a suite: a bare registry name, or name + options. */
export const SuiteMetric = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1), options: JsonObject.optional() }),
]);
export type SuiteMetric = z.infer<typeof SuiteMetric>;

/** Reference to an external case file: `file://cases.jsonl` (also .csv, .yaml, .yml, .json). */
export const CasesFileRef = z
  .string()
  .regex(/^file:\/\/.+\.(jsonl|csv|ya?ml|json)$/i, 'expected file://<path>.jsonl|.csv|.yaml|.yml|.json');

/** A test case as written in a suite or case file; id and name are optional (derived when absent). */
export const SuiteCase = z.strictObject({
  id: z.string().min(1).optional().describe('Stable id; defaults to a hash of the case content'),
  name: z.string().min(1).optional(),
  description: z.string().nullable().optional(),
  input: z.union([z.string(), JsonObject]).describe('What the agent receives (text or an object)'),
  expected: z.unknown().optional(),
  evaluators: z.array(SuiteEvaluator).optional().describe("Replaces the suite's evaluators for this case"),
  tags: z.array(z.string()).optional(),
  metadata: JsonObject.optional(),
  timeout: z.number().positive().nullable().optional().describe('Seconds per attempt'),
  repeat: z.number().int().min(1).nullable().optional(),
  vars: JsonObject.optional(),
});
export type SuiteCase = z.infer<typeof SuiteCase>;

/** Fields merged into every case (the case's own values win; tags, metadata and vars are combined). */
export const SuiteDefaults = z.strictObject({
  evaluators: z.array(SuiteEvaluator).optional(),
  expected: z.unknown().optional(),
  tags: z.array(z.string()).optional(),
  metadata: JsonObject.optional(),
  timeout: z.number().positive().nullable().optional(),
  repeat: z.number().int().min(1).nullable().optional(),
  vars: JsonObject.optional(),
});
export type SuiteDefaults = z.infer<typeof SuiteDefaults>;

export const SuiteAgent = z.strictObject({
  adapter: z.string().min(1).describe('Adapter registry name: module, mock, echo, http, subprocess, ...'),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the suite's ${ENV} syntax, not a JS template.
  options: JsonObject.optional().describe('Adapter options; `${ENV}` values are interpolated'),
  label: z.string().optional(),
  version: z.string().optional(),
});

/** The suite file format, version "1.0". */
export const SuiteFile = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal('1.0').describe('Suite format version (quote it in YAML: "1.0")'),
    name: z.string().min(1),
    description: z.string().nullable().optional(),
    agent: SuiteAgent,
    evaluators: z.array(SuiteEvaluator).optional().describe('Applied to every case that names none of its own'),
    metrics: z.array(SuiteMetric).optional().describe('Default: [success_rate]'),
    thresholds: z.record(z.string(), ThresholdRule).optional().describe('Gate rules by metric name'),
    headline: z
      .string()
      .min(1)
      .optional()
      .describe('The metric to read first (one of metrics): the viewer and `harness compare` lead with it'),
    display: z
      .record(z.string(), MetricDisplay)
      .optional()
      .describe('How each metric is shown: rate (percentage points), level (L1→L4), duration, usd, number'),
    defaults: SuiteDefaults.optional(),
    vars: JsonObject.optional().describe('Template variables for every case'),
    plugins: z
      .array(z.string().min(1))
      .optional()
      .describe('Local module paths or npm package names imported before validation'),
    quarantine: z.array(z.string().min(1)).optional().describe('Case ids reported but never gating a comparison'),
    tests: z.union([CasesFileRef, z.array(z.union([SuiteCase, CasesFileRef]))]).optional(),
    metadata: JsonObject.optional(),
  })
  .meta({ title: 'harness suite', description: 'A declarative evaluation suite for the harness' });
export type SuiteFile = z.infer<typeof SuiteFile>;

/** JSON Schema (draft 2020-12) for suite files, as committed in `schemas/suite.schema.json`. */
export function suiteJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(SuiteFile, { io: 'input' }) as Record<string, unknown>),
    $id: 'https://aeh.local/schemas/suite.schema.json',
  };
}
