import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

const schema = {
  type: 'object',
  required: ['id', 'tags'],
  properties: {
    id: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
    email: { type: 'string', format: 'email' },
  },
  additionalProperties: false,
};

describe('json_schema', () => {
  it('passes valid JSON, including inside a fence', async () => {
    expect((await run('json_schema', { schema }, '{"id":1,"tags":["a"]}')).passed).toBe(true);
    expect((await run('json_schema', { schema }, 'Result:\n```json\n{"id":1,"tags":[]}\n```')).passed).toBe(true);
  });
  it('reports every violation with its path', async () => {
    const r = await run('json_schema', { schema }, '{"id":"x","tags":[1],"email":"nope","extra":true}');
    expect(r.passed).toBe(false);
    const v = r.details.violations as { path: string; message: string }[];
    const paths = v.map((x) => x.path);
    expect(paths).toEqual(expect.arrayContaining(['/id', '/tags/0', '/email', '/']));
    expect(r.explanation).toContain("unexpected property 'extra'");
    expect(r.explanation).toMatch(/^4 schema violation/);
  });
  it('fails non-JSON output clearly', async () => {
    expect((await run('json_schema', { schema }, 'hello')).explanation).toContain('not valid JSON');
  });
  it('supports draft 2020-12 keywords (prefixItems)', async () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false };
    expect((await run('json_schema', { schema: tuple }, '["a", 1]')).passed).toBe(true);
    expect((await run('json_schema', { schema: tuple }, '["a", 1, 2]')).passed).toBe(false);
  });
  it('loads a YAML schema file relative to the suite', async () => {
    const ok = await run(
      'json_schema',
      { schema_file: './order.schema.yaml' },
      '{"order_id":"ORD-12345","status":"open"}',
    );
    expect(ok.passed).toBe(true);
    const bad = await run(
      'json_schema',
      { schema_file: './order.schema.yaml' },
      '{"order_id":"12345","status":"lost"}',
    );
    expect((bad.details.violations as unknown[]).length).toBe(2);
  });
  it('rejects invalid schemas, missing files and ambiguous options when built', () => {
    expect(() => build('json_schema', { schema: { type: 'nonsense' } })).toThrow(/schema: invalid JSON Schema/);
    expect(() => build('json_schema', { schema_file: './missing.json' })).toThrow(
      /cannot read schema_file .*missing\.json: ENOENT/,
    );
    expect(() => build('json_schema', {})).toThrow(/exactly one of/);
  });
});

describe('is_json', () => {
  it('passes whole-output JSON, fenced or not, and object outputs', async () => {
    expect((await run('is_json', {}, '{"a":1}')).passed).toBe(true);
    expect((await run('is_json', {}, '```json\n[1,2]\n```')).passed).toBe(true);
    expect((await run('is_json', {}, { output: { a: 1 } })).passed).toBe(true);
  });
  it('fails prose around JSON and fences when not allowed', async () => {
    expect((await run('is_json', {}, 'Here: {"a":1}')).passed).toBe(false);
    expect((await run('is_json', { allow_fences: false }, '```json\n[1]\n```')).passed).toBe(false);
  });
  it('checks the top-level type', async () => {
    expect((await run('is_json', { type: 'object' }, '[1]')).explanation).toBe('output is JSON array, expected object');
    expect((await run('is_json', { type: 'array' }, '[1]')).passed).toBe(true);
  });
});
