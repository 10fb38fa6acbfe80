import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateKey } from '../../../src/api/json-body.js';

describe('duplicateKey: a key twice in one object of a JSON body', () => {
  it('finds it, decoded, with the field path', () => {
    expect(duplicateKey('{"mode":"baseline","mode":"protected"}')).toMatchObject({
      code: 'duplicate_key',
      path: 'body.mode',
    });
    // The same key spelled with an escape, which JSON.parse decodes to the same property.
    expect(duplicateKey('{"mode":"baseline","\\u006dode":"protected"}')?.path).toBe('body.mode');
    expect(duplicateKey('{"a":{"b":[1,{"c":1,"d":{"e":[]},"c":2}]}}')?.path).toBe('body.a.b.1.c');
    // Braces, brackets, commas, quotes and backslashes inside strings are text, not structure.
    expect(duplicateKey('{"k":"{\\"k\\":1,[\\\\","k2":"]}","k":0}')?.path).toBe('body.k');
  });

  it('passes equal keys in different objects, equal values, and keys that only look alike', () => {
    for (const ok of [
      '{"a":1,"b":{"a":1}}',
      '[{"a":1},{"a":2}]',
      '{"a":"a","b":"a"}',
      '{"a":1,"A":2,"a ":3}',
      '{"x":[{"y":1,"z":2},{"y":1,"z":2}]}',
      '{}',
      '[]',
      '"text"',
      '{"":1,"\\"":2}',
    ]) {
      expect(duplicateKey(ok), ok).toBeNull();
    }
  });

  it('agrees with JSON.stringify for any value (its output never repeats a key) and finds a repeat spliced in', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, key) => {
        expect(duplicateKey(JSON.stringify(value))).toBeNull();
        // Wrap the value in an object that repeats a key: found at that key, whatever the value holds.
        const text = `{${JSON.stringify(key)}:${JSON.stringify(value)},${JSON.stringify(key)}:0}`;
        expect(duplicateKey(text)?.path).toBe(`body.${key}`);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
