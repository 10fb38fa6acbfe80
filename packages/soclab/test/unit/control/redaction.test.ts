import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePattern,
  containsEncodedSecret,
  containsSecret,
  findLeaks,
  REDACTED,
  redact,
  redactText,
  secretForms,
  walkStrings,
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

describe('redaction fast paths give what the plain algorithm gives', () => {
  /** The plain algorithm: every matcher replaced in turn; every string of walkStrings checked against every form. */
  const plainRedact = (text: string, patterns: readonly string[]) =>
    patterns.reduce(
      (out, p) =>
        compilePattern(p).matchers.reduce(
          (o, { regex }) => o.replace(new RegExp(regex.source, regex.flags), REDACTED),
          out,
        ),
      text,
    );
  function plainLeaks(value: unknown, secrets: string[], patterns: readonly string[]) {
    const found: { encoding: string; canary: string; path: string }[] = [];
    const add = (path: string, canary: string, encoding: string) => {
      if (!found.some((f) => f.path === path && f.canary === canary && f.encoding === encoding)) {
        found.push({ encoding, canary, path });
      }
    };
    for (const [path, text] of walkStrings(value)) {
      let exact = false;
      secrets.forEach((s, i) => {
        for (const f of secretForms(s)) {
          if (f.caseInsensitive ? text.toLowerCase().includes(f.needle) : text.includes(f.needle)) {
            add(path, `canary[${i}]`, f.encoding);
            exact = true;
          }
        }
      });
      for (const p of patterns) {
        for (const { encoding, regex } of compilePattern(p).matchers) {
          if (!new RegExp(regex.source, regex.flags).test(text)) continue;
          if (exact && found.some((f) => f.path === path && f.encoding === encoding)) continue;
          add(path, p, encoding);
        }
      }
    }
    return found;
  }

  /** The plain algorithm of containsSecret / containsEncodedSecret: every string against every kept form. */
  function plainContains(value: unknown, secrets: string[], keep: (encoding: string) => boolean): boolean {
    for (const [, text] of walkStrings(value)) {
      for (const s of secrets) {
        for (const f of secretForms(s)) {
          if (!keep(f.encoding)) continue;
          if (f.caseInsensitive ? text.toLowerCase().includes(f.needle) : text.includes(f.needle)) return true;
        }
      }
    }
    return false;
  }

  it('on strings and structures holding canaries literally, in base64, in hex of either case, cut or not (redactText, redact, findLeaks, containsSecret, containsEncodedSecret)', () => {
    const patterns = ['CANARY-SECRET-*', 'TOKEN*', 'KEY'];
    const canary = fc.constantFrom(secret, 'CANARY-SECRET-9', 'TOKENabc', 'KEY', 'CANARY-SECRET-');
    const encoded = fc
      .tuple(canary, fc.constantFrom('literal', 'base64', 'hex', 'HEX'), fc.nat(40))
      .map(([c, how, cut]) => {
        const text = how === 'literal' ? c : how === 'base64' ? b64(c) : how === 'hex' ? hex(c) : hex(c).toUpperCase();
        return text.slice(0, Math.max(cut, 3));
      });
    const text = fc
      .array(fc.oneof(fc.string({ maxLength: 6 }), encoded, fc.constantFrom('', '.', 'x', '[REDACTED]')), {
        maxLength: 5,
      })
      .map((parts) => parts.join(''));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(text, fc.constantFrom('', 'a')), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(text, (t) => {
        expect(redactText(t, patterns)).toBe(plainRedact(t, patterns));
      }),
      { seed: 22, numRuns: 1000 },
    );
    fc.assert(
      fc.property(value, fc.subarray([secret, 'TOKENabc']), (v, secrets) => {
        const plainValue = (x: unknown): unknown =>
          typeof x === 'string'
            ? plainRedact(x, patterns)
            : Array.isArray(x)
              ? x.map(plainValue)
              : x !== null && typeof x === 'object'
                ? Object.fromEntries(Object.entries(x).map(([k, y]) => [plainRedact(k, patterns), plainValue(y)]))
                : x;
        expect(redact(v, patterns)).toEqual(plainValue(v));
        const leaks = findLeaks(v, { sink: 'report', secrets, patterns });
        expect(leaks.map(({ encoding, canary, path }) => ({ encoding, canary, path }))).toEqual(
          plainLeaks(v, secrets, patterns),
        );
        expect(containsSecret(v, secrets)).toBe(plainContains(v, secrets, () => true));
        expect(containsSecret(v, secrets, false)).toBe(plainContains(v, secrets, (e) => e === 'literal'));
        expect(containsEncodedSecret(v, secrets)).toBe(plainContains(v, secrets, (e) => e !== 'literal'));
      }),
      { seed: 22, numRuns: 500 },
    );
  });
});

describe('findLeaks with the same secrets array again', () => {
  it('finds the secrets the array holds now, also after it was changed in place', () => {
    const secrets = [secret];
    const other = 'TOKEN-other-77';
    const value = { a: hex(other).toUpperCase(), b: secret };
    const paths = () => findLeaks(value, { sink: 'report', secrets, patterns: [] }).map((f) => `${f.path}:${f.canary}`);
    expect(paths()).toEqual(['b:canary[0]']);
    secrets[0] = other;
    expect(paths()).toEqual(['a:canary[0]']);
    secrets.push(secret);
    expect(paths()).toEqual(['a:canary[0]', 'b:canary[1]']);
  });
});
