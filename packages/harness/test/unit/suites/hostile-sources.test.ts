import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateSuite } from '../../../src/suites/loader.js';
import { formatIssue } from '../../../src/suites/positions.js';
import { SOURCE_LIMITS } from '../../../src/suites/source-limits.js';
import '../../../src/adapters/index.js';
import '../../helpers/plugins.js';

/** Issue 15 defects 8 and 10 (suite files): hostile or lenient input is a located validation error, never a crash. */

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function dir(files: Record<string, string | Buffer>): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-hostile-'));
  made.push(d);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(d, name), content);
  return d;
}

/** Every issue of a suite as printed (`file:line:col: path: message`), file names relative to the folder. */
async function problems(d: string, suite = 'suite.yaml'): Promise<string[]> {
  const { issues } = await validateSuite(join(d, suite), { env: {} });
  return issues.map((i) => formatIssue({ ...i, file: i.file.slice(i.file.lastIndexOf('/') + 1) }));
}

const HEAD = 'version: "1.0"\nname: hostile\nagent: { adapter: echo }\n';

const bomb = (levels: number) => {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i < levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return lines;
};

describe('suite limits (aliases, depth, size)', () => {
  it('accepts a suite that uses anchors and aliases within the limits (the ordinary use)', async () => {
    const d = dir({
      'suite.yaml': `${HEAD}defaults: &d { tags: [smoke] }\ntests:\n${Array.from(
        { length: 150 },
        (_, i) => `  - { id: c${i}, input: "q${i}", tags: *t }`,
      )
        .join('\n')
        .replace('*t', '&t [x]')}\n`,
    });
    expect(await problems(d)).toEqual([]);
  });

  it('stops an alias bomb with a located validation error instead of expanding it', async () => {
    // 9 levels of 9 aliases: about 387 million strings once expanded.
    const d = dir({
      'suite.yaml': `${HEAD}${bomb(9)
        .map((l, i) => `x${i}: ${l.slice(l.indexOf(':') + 2)}`)
        .join('\n')}\ntests: [{ id: a, input: hi }]\n`,
    });
    const found = await problems(d);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      new RegExp(`^suite.yaml:\\d+:\\d+: aliases expand to more than ${SOURCE_LIMITS.maxAliasExpansion} nodes`),
    );
  });

  it('refuses more aliases than the limit, an alias inside its own anchor, and nesting past the depth limit', async () => {
    const many = dir({
      'suite.yaml': `${HEAD}vars: { v: &v x }\ntests:\n${Array.from(
        { length: SOURCE_LIMITS.maxAliases + 1 },
        (_, i) => `  - { id: c${i}, input: *v }`,
      ).join('\n')}\n`,
    });
    expect((await problems(many))[0]).toMatch(
      new RegExp(`^suite.yaml:${6 + SOURCE_LIMITS.maxAliases}:\\d+: more than ${SOURCE_LIMITS.maxAliases} aliases`),
    );

    const selfRef = dir({ 'suite.yaml': `${HEAD}vars: &v { again: [1, *v] }\ntests: [{ id: a, input: hi }]\n` });
    expect((await problems(selfRef))[0]).toMatch(/^suite.yaml:4:\d+: /);

    // Found by the property test: a merge key with an unknown anchor made the converter throw (exit 3).
    const merge = dir({ 'suite.yaml': `${HEAD}vars:\n  <<: *nowhere\ntests: [{ id: a, input: hi }]\n` });
    expect(await problems(merge)).toContainEqual('suite.yaml:5:7: alias *nowhere has no anchor &nowhere before it');

    const flow = dir({
      'suite.yaml': `${HEAD}tests: [{ id: a, input: ${'['.repeat(20_000)}${']'.repeat(20_000)} }]\n`,
    });
    const depthMessage = `nesting deeper than ${SOURCE_LIMITS.maxDepth} levels`;
    expect(await problems(flow)).toEqual([
      `suite.yaml:4:${'tests: [{ id: a, input: '.length + SOURCE_LIMITS.maxDepth - 1}: ${depthMessage} (the limit for suite files)`,
    ]);

    let block = `${HEAD}tests:\n  - id: a\n    input:\n`;
    for (let i = 0; i < 80; i++) block += `${' '.repeat(6 + 2 * i)}k${i}:\n`;
    block += `${' '.repeat(6 + 160)}leaf\n`;
    const blockDir = dir({ 'suite.yaml': block });
    expect((await problems(blockDir))[0]).toMatch(new RegExp(`^suite.yaml:\\d+:\\d+: ${depthMessage}`));
  });

  it('refuses a CSV record that stays open past the size limit (unterminated quote), naming where it starts', async () => {
    const line = `${'x'.repeat(16 * 1024)}\n`;
    const d = dir({
      'suite.yaml': `${HEAD}tests: file://cases.csv\n`,
      'cases.csv': `id,input\na,fine\nb,"never closed\n${line.repeat(Math.ceil(SOURCE_LIMITS.maxBytes / line.length) + 1)}`,
    });
    expect(await problems(d)).toEqual(['cases.csv:3:1: CSV record longer than 16.0 MiB (an unterminated quote?)']);
  });

  it('refuses a suite file over the size limit before reading it', async () => {
    const big = Buffer.alloc(SOURCE_LIMITS.maxBytes + 1, 0x20);
    const d = dir({ 'suite.yaml': big });
    expect(await problems(d)).toEqual([
      'suite.yaml: file is 16.0 MiB, over the 16.0 MiB limit for suite and YAML/JSON case files (use JSONL or CSV for large case sets)',
    ]);
  });
});

describe('strict text (UTF-8, JSON, __proto__)', () => {
  it('rejects invalid UTF-8 with its line and column, in the suite and in every case-file format', async () => {
    const bad = (text: string, at: string) =>
      Buffer.concat([Buffer.from(text), Buffer.from([0xc3, 0x28]), Buffer.from(at)]);
    const d = dir({
      'suite.yaml': bad(`${HEAD}tests:\n  - { id: a, input: "caf`, '" }\n'),
      'cases.jsonl': bad('{"id": "a", "input": "x"}\n{"id": "b", "input": "', '"}\n'),
      'cases.csv': bad('id,input\na,hello\nb,wor', 'ld\n'),
      'cases.yaml': bad('- { id: a, input: x }\n- { id: b, input: "', '" }\n'),
    });
    const message = 'invalid UTF-8: byte 0xC3';
    // The column counts characters: the bad byte follows `  - { id: a, input: "caf` (24 characters).
    expect((await problems(d))[0]).toMatch(new RegExp(`^suite.yaml:5:25: ${message}`));
    for (const [file, where] of [
      ['cases.jsonl', '2:23'],
      ['cases.csv', '3:6'],
      ['cases.yaml', '2:20'],
    ] as const) {
      const s = dir({
        'suite.yaml': `${HEAD}tests: file://${file}\n`,
        [file]: (await import('node:fs')).readFileSync(join(d, file)),
      });
      expect((await problems(s))[0], file).toMatch(new RegExp(`^${file.replace('.', '\\.')}:${where}: ${message}`));
    }
  });

  it('accepts a UTF-8 byte order mark and multi-byte text', async () => {
    const d = dir({
      'suite.yaml': Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(`${HEAD}tests: [{ id: a, input: "café ✓ 日本" }]\n`),
      ]),
    });
    expect(await problems(d)).toEqual([]);
  });

  it('rejects a .json suite with a trailing comma, a comment or single quotes, at line:col', async () => {
    const json = (body: string) =>
      dir({ 'suite.json': `{\n  "version": "1.0",\n  "name": "j",\n  "agent": { "adapter": "echo" },\n${body}\n}\n` });
    expect(await problems(json('  "tests": [{ "id": "a", "input": "x" },]'), 'suite.json')).toEqual([
      "suite.json:5:40: invalid JSON: trailing comma before ']'",
    ]);
    expect(await problems(json('  "tests": [{ "id": "a", "input": "x" }],'), 'suite.json')).toEqual([
      "suite.json:5:41: invalid JSON: trailing comma before '}'",
    ]);
    expect(await problems(json('  // cases\n  "tests": []'), 'suite.json')).toEqual([
      'suite.json:5:3: invalid JSON: comments are not allowed in JSON',
    ]);
    expect(await problems(json("  'tests': []"), 'suite.json')).toEqual([
      "suite.json:5:3: invalid JSON: expected a double-quoted key, found '''",
    ]);
    expect(await problems(json('  "tests": [{ "id": "a", "input": "x" }]'), 'suite.json')).toEqual([]);
  });

  it('rejects a trailing comma in a .json case file and names the column in a JSONL line', async () => {
    const d = dir({
      'suite.yaml': `${HEAD}tests: file://cases.json\n`,
      'cases.json': '[\n  { "id": "a", "input": "x" },\n]\n',
    });
    expect(await problems(d)).toEqual(["cases.json:2:30: invalid JSON: trailing comma before ']'"]);
    const l = dir({
      'suite.yaml': `${HEAD}tests: file://cases.jsonl\n`,
      'cases.jsonl': '{"id": "a", "input": "x",}\n',
    });
    expect(await problems(l)).toEqual(["cases.jsonl:1:25: invalid JSON: trailing comma before '}'"]);
  });

  it('rejects YAML tags (!!binary, !!timestamp, !!set, !custom) instead of reading a quietly different value', async () => {
    const cases = [
      'tests:',
      '  - { id: b, input: !!binary aGVsbG8=, expected: hello }',
      '  - { id: c, input: !custom hi, expected: hi }',
      '  - { id: t, input: !!timestamp 2020-01-01, expected: x }',
      '  - { id: s, input: !!set { x }, expected: x }',
      '  - { id: ok, input: !!str 1, expected: "1" }',
      '',
    ].join('\n');
    const d = dir({ 'suite.yaml': `${HEAD}${cases}`, 'cases.yaml': '- { id: x, input: !env HOME }\n' });
    expect(await problems(d)).toEqual([
      expect.stringMatching(/^suite\.yaml:5:21: syntax error: unsupported YAML tag !!binary/),
      expect.stringMatching(/^suite\.yaml:6:21: syntax error: unsupported YAML tag !custom/),
      expect.stringMatching(/^suite\.yaml:7:21: syntax error: unsupported YAML tag !!timestamp/),
      expect.stringMatching(/^suite\.yaml:8:21: syntax error: unsupported YAML tag !!set/),
    ]);
    writeFileSync(join(d, 'file.yaml'), `${HEAD}tests: file://cases.yaml\n`);
    expect(await problems(d, 'file.yaml')).toEqual([
      expect.stringMatching(/^cases\.yaml:1:19: syntax error: unsupported YAML tag !env/),
    ]);
  });

  it('rejects __proto__ as an unknown field (top level and in a case), never dropping it silently', async () => {
    const y = dir({
      'suite.yaml': `${HEAD}__proto__: { polluted: true }\ntests: [{ id: a, input: hi, __proto__: 1 }]\n`,
    });
    expect(await problems(y)).toEqual([
      "suite.yaml:4:1: __proto__: unknown field '__proto__'",
      "suite.yaml:5:29: tests.0.__proto__: unknown field '__proto__'",
    ]);
    const j = dir({
      'suite.json': '{"version": "1.0", "name": "j", "agent": {"adapter": "echo"}, "__proto__": {}, "tests": []}',
    });
    expect(await problems(j, 'suite.json')).toEqual(["suite.json:1:63: __proto__: unknown field '__proto__'"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
