import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorMessage, isErrnoException, toError } from '../../../src/core/errors.js';

describe('narrowing thrown values', () => {
  it('gives the text of anything thrown, not only Errors', () => {
    expect(errorMessage('plain string')).toBe('plain string');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage({ message: 'looks like an error' })).toBe('[object Object]');
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
  });

  it('recognises a Node system error by its string code, and nothing else', () => {
    let thrown: unknown;
    try {
      readFileSync(join(mkdtempSync(join(tmpdir(), 'aeh-errno-')), 'missing.txt'));
    } catch (err) {
      thrown = err;
    }
    expect(isErrnoException(thrown)).toBe(true);
    if (isErrnoException(thrown)) expect(thrown.code).toBe('ENOENT');
    expect(isErrnoException(new Error('no code'))).toBe(false);
    expect(isErrnoException({ code: 'ENOENT', message: 'not an Error' })).toBe(false);
    expect(isErrnoException(Object.assign(new Error('numeric code'), { code: 7 }))).toBe(false);
  });

  it('turns anything thrown into an Error with its text, keeping a real Error as it is', () => {
    const original = new RangeError('out of range');
    expect(toError(original)).toBe(original);
    const wrapped = toError('a thrown string');
    expect(wrapped).toBeInstanceOf(Error);
    expect(`${wrapped.name}: ${wrapped.message}`).toBe('Error: a thrown string');
  });
});
