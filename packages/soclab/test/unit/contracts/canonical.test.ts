import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/contracts/canonical.js';

/** The `canonicalize` package (what canonicalJson used before it was rewritten for speed): output or error message. */
function reference(value: unknown): string {
  try {
    const text = canonicalize(value);
    return text === undefined ? 'TypeError' : `ok ${text}`;
  } catch (error) {
    return `error ${(error as Error).message}`;
  }
}

function ours(value: unknown): string {
  try {
    return `ok ${canonicalJson(value)}`;
  } catch (error) {
    return error instanceof TypeError && /canonical JSON/.test(error.message)
      ? 'TypeError'
      : `error ${(error as Error).message}`;
  }
}

describe('canonicalJson (RFC 8785)', () => {
  it('refuses what JCS cannot represent, naming why', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow('NaN is not allowed');
    expect(() => canonicalJson({ a: [1, Number.POSITIVE_INFINITY] })).toThrow('Infinity is not allowed');
    expect(() => canonicalJson({ note: 'cut \uD83D' })).toThrow('Lone surrogate is not allowed');
    expect(() => canonicalJson({ '\uDE00key': 1 })).toThrow('Lone surrogate is not allowed');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => canonicalJson(cyclic)).toThrow('Circular reference detected');
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });

  it('sorts keys by UTF-16 code units, formats numbers as ECMAScript does and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [3, 'x', null, true], '\u20ac': 1, '\uD83D\uDE00': 2, '\r': 0 })).toBe(
      '{"\\r":0,"a":[3,"x",null,true],"b":1,"\u20ac":1,"\uD83D\uDE00":2}',
    );
    expect(canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2, 2 ** 53 + 2])).toBe(
      '[1e+21,1e-7,0,0.30000000000000004,9007199254740994]',
    );
    expect(canonicalJson({ gone: undefined, kept: null, list: [undefined, 1] })).toBe('{"kept":null,"list":[null,1]}');
    expect(canonicalJson({ at: new Date(Date.UTC(2026, 0, 2)) })).toBe('{"at":"2026-01-02T00:00:00.000Z"}');
    // The same object twice (not a cycle) is fine.
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it('gives the same text or the same error as the canonicalize package for any JSON-like value', () => {
    const odd = fc.constantFrom<unknown>(
      undefined,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      -0,
      '\uD800',
      'a\uDFFFb',
      '\uD83D\uDE00',
      () => 1,
      Symbol('s'),
      new Date(0),
      { toJSON: () => undefined },
      { toJSON: () => ({ z: 1, a: [2] }) },
    );
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary' }), fc.double(), odd),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.sparseArray(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(ours(v)).toBe(reference(v));
      }),
      { seed: 22, numRuns: 1000 },
    );
  });
});
