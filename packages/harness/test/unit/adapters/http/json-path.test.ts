import { describe, expect, it } from 'vitest';
import { compileJsonPath, JsonPathError } from '../../../../src/adapters/http/json-path.js';

const doc = {
  answer: 'Paris',
  steps: [
    { tool: 'search', input: { q: 'capital' } },
    { tool: 'lookup', input: { id: 7 } },
  ],
  'odd key': { v: 1 },
  usage: { prompt_tokens: 3 },
};

describe('compileJsonPath', () => {
  it('reads names, indexes, negative indexes and quoted keys', () => {
    expect(compileJsonPath('$.answer').select(doc)).toBe('Paris');
    expect(compileJsonPath('answer').select(doc)).toBe('Paris');
    expect(compileJsonPath('$.steps[1].input.id').select(doc)).toBe(7);
    expect(compileJsonPath('$.steps[-1].tool').select(doc)).toBe('lookup');
    expect(compileJsonPath("$['odd key'].v").select(doc)).toBe(1);
    expect(compileJsonPath('$').select(doc)).toBe(doc);
  });

  it('returns every match for wildcards and undefined for a missing single path', () => {
    expect(compileJsonPath('$.steps[*].tool').select(doc)).toEqual(['search', 'lookup']);
    expect(compileJsonPath('$.usage.*').select(doc)).toEqual([3]);
    expect(compileJsonPath('$.nope.deeper').select(doc)).toBeUndefined();
    expect(compileJsonPath('$.steps[*].missing').select(doc)).toEqual([]);
  });

  it('takes the first alternative that matches with ??', () => {
    expect(compileJsonPath('$.output ?? $.answer').select(doc)).toBe('Paris');
    expect(compileJsonPath('$.x ?? $.y').select(doc)).toBeUndefined();
  });

  it('does not treat array indexes as object keys or walk into strings', () => {
    expect(compileJsonPath('$.answer[0]').select(doc)).toBeUndefined();
    expect(compileJsonPath('$.steps.tool').select(doc)).toBeUndefined();
  });

  it('rejects malformed paths with the column of the mistake', () => {
    expect(() => compileJsonPath('$.steps[0')).toThrowError(JsonPathError);
    expect(() => compileJsonPath('$.steps[0')).toThrowError(/unclosed '\[' at column 8/);
    expect(() => compileJsonPath('$.a[foo]')).toThrowError(/quoted name at column 5/);
    expect(() => compileJsonPath('$..a')).toThrowError(/expected a name at column 3/);
  });
});
