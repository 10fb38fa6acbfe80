import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { suiteJsonSchema } from '../../../src/suites/schema.js';

const root = resolve(__dirname, '../../../../..');
const committed = join(root, 'packages/harness/schemas/suite.schema.json');

describe('suite JSON Schema', () => {
  it('matches the committed schemas/suite.schema.json (run with UPDATE_SCHEMAS=1 to regenerate)', () => {
    const generated = `${JSON.stringify(suiteJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMAS) writeFileSync(committed, generated);
    expect(readFileSync(committed, 'utf8')).toBe(generated);
  });

  it('accepts the shipped example suites and rejects unknown fields (independent check with Ajv)', () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: true });
    const validate = ajv.compile(suiteJsonSchema());
    for (const f of ['customer-support.yaml', 'tool-trajectories.yaml', 'repeats.yaml']) {
      const doc = parse(readFileSync(join(root, 'benchmarks/examples', f), 'utf8'));
      expect(validate(doc), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ version: '1.0', name: 'x', agent: { adapter: 'echo' }, colour: 'red' })).toBe(false);
    expect(validate({ version: 1, name: 'x', agent: { adapter: 'echo' } })).toBe(false);
  });
});
