import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

// Every JSON Schema the workspace publishes (any `*.schema.json` under a package's schemas/ folder), found on
// disk so a new schema is covered without editing this test.
const ROOT = resolve(__dirname, '../../../../..');

function schemaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...schemaFiles(path));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

const published = readdirSync(join(ROOT, 'packages'))
  .map((pkg) => join(ROOT, 'packages', pkg, 'schemas'))
  .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
  .flatMap(schemaFiles)
  .sort();

const STRICT: Options = { strict: true, allErrors: true };
/** The Ajv class for each draft a schema may declare; any other `$schema` is a failure, not a silent default. */
const BY_DRAFT: Record<string, () => { compile(schema: object): unknown }> = {
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020(STRICT),
  'https://json-schema.org/draft/2019-09/schema': () => new Ajv2019(STRICT),
  'http://json-schema.org/draft-07/schema#': () => new Ajv(STRICT),
};

describe('published JSON Schemas under Ajv strict mode', () => {
  it('finds the schemas (a broken walk must not pass vacuously)', () => {
    expect(published.map((f) => relative(ROOT, f))).toContain('packages/harness/schemas/suite.schema.json');
    expect(published.map((f) => relative(ROOT, f))).toContain('packages/soclab/schemas/agent-v1/response.schema.json');
  });

  for (const file of published) {
    it(`${relative(ROOT, file)} declares a known draft and compiles with strict: true`, () => {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as { $schema?: string };
      const make = BY_DRAFT[schema.$schema ?? ''];
      expect(make, `unknown or missing $schema: ${String(schema.$schema)}`).toBeDefined();
      expect(() => make?.().compile(schema)).not.toThrow();
    });
  }

  it('strict mode is really on: the old agent-v1 response pattern is rejected (strictRequired)', () => {
    const old = { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ not: { required: ['a'] } }] };
    expect(() => new Ajv2020(STRICT).compile(old)).toThrow(/strictRequired/);
  });
});
