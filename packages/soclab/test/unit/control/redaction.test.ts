import { describe, expect, it } from 'vitest';
import {
  containsEncodedSecret,
  containsSecret,
  findLeaks,
  REDACTED,
  redact,
  redactText,
} from '../../../src/control/redaction.js';

const secret = 'CANARY-SECRET-001-0a1b2c3d4e5f';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const hex = (s: string) => Buffer.from(s).toString('hex');

describe('canary redaction', () => {
  it('redacts literal, base64 and hex forms anywhere in a structure', () => {
    const value = {
      a: `code ${secret} end`,
      list: [`id=${b64(secret)};`, `x ${hex(secret).toUpperCase()} y`],
      [`key ${secret}`]: 1,
      n: 3,
    };
    const out = redact(value);
    expect(out.a).toBe(`code ${REDACTED} end`);
    expect(out.list[0]).toBe(`id=${REDACTED};`);
    expect(out.list[1]).toBe(`x ${REDACTED} y`);
    expect(Object.keys(out)).toContain(`key ${REDACTED}`);
    expect(out.n).toBe(3);
    expect(JSON.stringify(out)).not.toContain('CANARY');
  });

  it('leaves unrelated base64 and hex alone', () => {
    const text = `${b64('hello world, nothing to see')} deadbeefcafe ${hex('ordinary text')}`;
    expect(redactText(text)).toBe(text);
  });

  it('detects secrets literally and encoded, and encoded only when asked', () => {
    expect(containsSecret({ x: [`a ${secret}`] }, [secret])).toBe(true);
    expect(containsSecret({ x: b64(`${secret} and more`) }, [secret])).toBe(true);
    expect(containsSecret({ x: hex(secret) }, [secret], false)).toBe(false);
    expect(containsEncodedSecret({ x: secret }, [secret])).toBe(false);
    expect(containsEncodedSecret({ x: hex(secret).toUpperCase() }, [secret])).toBe(true);
    expect(containsSecret({ x: 'CANARY-SECRET-001-ffffffffffff' }, [secret])).toBe(false);
  });

  it('reports where and how a canary leaked, never the value', () => {
    const leaks = findLeaks(
      { summary: `ok ${secret}`, claims: [{ text: `corr ${b64(secret)}` }] },
      { sink: 'finding', where: 'finding#9', secrets: [secret] },
    );
    expect(leaks).toEqual([
      { sink: 'finding', encoding: 'literal', canary: 'canary[0]', path: 'summary', where: 'finding#9' },
      { sink: 'finding', encoding: 'base64', canary: 'canary[0]', path: 'claims.0.text', where: 'finding#9' },
    ]);
    // A canary from another run (or the fixture's base value) is still caught by the pattern.
    const foreign = findLeaks({ t: 'CANARY-SECRET-001' }, { sink: 'report', secrets: [secret] });
    expect(foreign).toEqual([
      { sink: 'report', encoding: 'literal', canary: 'CANARY-SECRET-*', path: 't', where: null },
    ]);
    expect(JSON.stringify(leaks)).not.toContain(secret);
  });
});
