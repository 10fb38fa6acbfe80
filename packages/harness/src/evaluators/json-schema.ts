import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { z } from 'zod';
import { isError, outputText } from '../core/agent.js';
import { errorMessage, isErrnoException } from '../core/errors.js';
import { defineEvaluator, errorResult, result } from './base.js';
import { clip } from './support/expected.js';
import { parseJsonLoose } from './support/json.js';
import { compileSchema, schemaProblem, validateAgainst } from './support/schema.js';

const Options = z
  .strictObject({
    /** JSON Schema (draft 2020-12) the output's JSON must satisfy. */
    schema: z.record(z.string(), z.unknown()).optional(),
    /** Or a path to a .json/.yaml schema file, relative to the suite file. */
    schema_file: z.string().min(1).optional(),
    /** Find JSON inside prose or a Markdown code fence in the output. */
    extract: z.boolean().default(true),
  })
  .superRefine((o, ctx) => {
    if ((o.schema === undefined) === (o.schema_file === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['schema'], message: 'give exactly one of `schema` or `schema_file`' });
      return;
    }
    if (o.schema) {
      const problem = schemaProblem(o.schema);
      if (problem) ctx.addIssue({ code: 'custom', path: ['schema'], message: `invalid JSON Schema: ${problem}` });
    }
  });

/** Load a schema file (JSON or YAML) and check that it compiles; errors name the file. */
export function loadSchemaFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read schema_file ${path}: ${isErrnoException(err) ? err.code : errorMessage(err)}`);
  }
  let schema: unknown;
  try {
    schema = /\.ya?ml$/i.test(path) ? parseYamlLazily(text) : JSON.parse(text);
  } catch (err) {
    throw new Error(
      `schema_file ${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${errorMessage(err)}`,
    );
  }
  const problem = schemaProblem(schema);
  if (problem) throw new Error(`schema_file ${path} is not a valid JSON Schema: ${problem}`);
  return schema as Record<string, unknown>;
}

/**
 * Passes when the output's JSON validates against a JSON Schema (ajv, draft 2020-12, formats on);
 * a failure lists every violation with its JSON pointer.
 * @example { name: json_schema, options: { schema: { type: object, required: [id] } } }
 */
export const jsonSchema = defineEvaluator({
  name: 'json_schema',
  example: { schema: { type: 'object', required: ['answer'] } },
  description:
    'Output JSON validates against a JSON Schema (draft 2020-12); reports every violation (options: schema | schema_file).',
  options: Options,
  create(opts, ctx) {
    const schema = opts.schema ?? loadSchemaFile(resolve(ctx.baseDir, opts.schema_file as string));
    compileSchema(schema);
    return {
      name: 'json_schema',
      evaluate(_testCase, output) {
        if (isError(output)) return errorResult('json_schema', output);
        const parsed = parseJsonLoose(output.output, opts.extract);
        if (!parsed.ok) {
          return result({
            evaluator: 'json_schema',
            score: 0,
            passed: false,
            explanation: `output is not valid JSON: ${parsed.error}`,
            details: { raw_output: clip(outputText(output), 1000) },
          });
        }
        const violations = validateAgainst(schema, parsed.value);
        const passed = violations.length === 0;
        return result({
          evaluator: 'json_schema',
          score: passed ? 1 : 0,
          passed,
          explanation: passed
            ? 'output JSON satisfies the schema'
            : `${violations.length} schema violation(s): ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
          details: { violations },
        });
      },
    };
  },
});

/** YAML is needed only for YAML schema files; load it then (keeps plugin listing fast). */
function parseYamlLazily(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}
