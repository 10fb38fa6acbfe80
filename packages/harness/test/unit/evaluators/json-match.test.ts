import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';

describe('json_match', () => {
  it('matches a subset of keys by default', async () => {
    const r = await run('json_match', {}, '{"status":"ok","id":7,"extra":true}', { expected: { status: 'ok', id: 7 } });
    expect(r.passed).toBe(true);
  });
  it('subset false rejects extra keys and names them', async () => {
    const r = await run('json_match', { subset: false }, '{"status":"ok","extra":1}', { expected: { status: 'ok' } });
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain("unexpected key(s) 'extra'");
  });
  it('reports the path of a wrong nested value', async () => {
    const r = await run('json_match', {}, '{"user":{"name":"Bob"}}', { expected: { user: { name: 'Alice' } } });
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('$.user.name');
  });
  it('tolerates Markdown fences with any tag and prose around them', async () => {
    expect((await run('json_match', {}, '```JSON\n{"a":1}\n```', { expected: { a: 1 } })).passed).toBe(true);
    expect(
      (await run('json_match', {}, 'Sure! Here it is:\n```json\n{"a":1}\n```\nAnything else?', { expected: { a: 1 } }))
        .passed,
    ).toBe(true);
    expect((await run('json_match', {}, 'The answer is {"a": 1}.', { expected: { a: 1 } })).passed).toBe(true);
  });
  it('ignores array order by default and finds a full pairing', async () => {
    // greedy first-fit would pair {a:1} with the first item and then fail; a full matching succeeds
    const out = JSON.stringify([{ a: 1, b: 2 }, { a: 1 }]);
    expect((await run('json_match', {}, out, { expected: [{ a: 1, b: 2 }, { a: 1 }].reverse() })).passed).toBe(true);
    expect((await run('json_match', {}, '[3,1,2]', { expected: [1, 2, 3] })).passed).toBe(true);
    expect((await run('json_match', { ignore_order: false }, '[3,1,2]', { expected: [1, 2, 3] })).passed).toBe(false);
  });
  it('a duplicate expected item needs a duplicate actual item', async () => {
    expect((await run('json_match', {}, '[1,2]', { expected: [1, 1] })).passed).toBe(false);
  });
  it('accepts an object output and JSON text as expected', async () => {
    expect((await run('json_match', {}, { output: { a: [1, 2] } }, { expected: '{"a":[2,1]}' })).passed).toBe(true);
  });
  it('fails clearly on non-JSON output and on malformed expected', async () => {
    const r = await run('json_match', {}, 'not json', { expected: { a: 1 } });
    expect(r.passed).toBe(false);
    expect(r.explanation).toContain('output is not valid JSON');
    const r2 = await run('json_match', {}, '{}', { expected: '{bad' });
    expect(r2.explanation).toContain('expected value is not valid JSON');
  });
  it('distinguishes types (1 vs "1") and handles null', async () => {
    expect((await run('json_match', {}, '{"a":"1"}', { expected: { a: 1 } })).passed).toBe(false);
    expect((await run('json_match', {}, '{"a":null}', { expected: { a: null } })).passed).toBe(true);
  });
  it('fails an errored output', async () => {
    expect((await run('json_match', {}, { output: '{"a":1}', error: 'x' }, { expected: { a: 1 } })).passed).toBe(false);
  });
});
