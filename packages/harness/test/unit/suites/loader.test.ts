import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAdapter } from '../../../src/adapters/base.js';
import { agentOutput } from '../../../src/core/agent.js';
import type { TestCase } from '../../../src/core/testcase.js';
import { loadSuite, SuiteValidationError, validateSuite } from '../../../src/suites/loader.js';
import { formatIssue } from '../../../src/suites/positions.js';
import '../../helpers/plugins.js';
import { defined } from '../../helpers/defined.js';

defineAdapter({
  name: 't_agent',
  description: 'test adapter',
  options: z.strictObject({ token: z.string().optional(), mode: z.enum(['a', 'b']).default('a') }),
  create: () => ({ run: async () => agentOutput({ output: 'x' }) }),
});

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-suite-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

async function all(suite: { cases(): AsyncIterable<TestCase> }): Promise<TestCase[]> {
  const out: TestCase[] = [];
  for await (const c of suite.cases()) out.push(c);
  return out;
}

describe('loadSuite', () => {
  it('reports every problem in a file at once, each with file:line:col', async () => {
    const d = dir({
      'suite.yaml': [
        'version: "1.0"', //                      1
        'name: broken', //                        2
        'agent:', //                              3
        '  adapter: t_agent', //                  4
        '  options:', //                          5
        '    mode: c', //                         6  bad enum
        'evaluators:', //                         7
        '  - name: t_equalz', //                  8  unknown evaluator
        '  - name: t_equals', //                  9
        '    options:', //                        10
        '      trim: "yes"', //                   11 wrong type
        'tests:', //                              12
        '  - id: one', //                         13
        '    input: hi', //                       14
        '     expected: hi', //                   15 bad indentation
        '  - id: two', //                         16
        '    input: there', //                    17
        '    colour: red', //                     18 unknown field
      ].join('\n'),
    });
    const { issues } = await validateSuite(join(d, 'suite.yaml'));
    const lines = issues.map(formatIssue);
    const at = (line: number) => lines.filter((l) => l.includes(`suite.yaml:${line}:`));
    expect(at(6)[0]).toMatch(/agent\.options\.mode: invalid adapter option/);
    expect(at(8)[0]).toMatch(
      /suite\.yaml:8:11: evaluators\.0\.name: unknown evaluator 't_equalz'; did you mean 't_equals'/,
    );
    expect(at(11)[0]).toMatch(/suite\.yaml:11:13: evaluators\.1\.options\.trim: invalid evaluator option/);
    expect(at(15)[0]).toMatch(/syntax error: bad indentation/);
    expect(at(18)[0]).toMatch(/suite\.yaml:18:5: tests\.1\.colour: unknown field 'colour'/);
    await expect(loadSuite(join(d, 'suite.yaml'))).rejects.toBeInstanceOf(SuiteValidationError);
  });

  it('merges defaults, derives stable ids from content, and keeps explicit ids', async () => {
    const text = `version: "1.0"
name: ok
agent: { adapter: t_agent }
defaults:
  tags: [base]
  metadata: { team: a }
  evaluators: [t_equals]
tests:
  - input: hello
    expected: hello
    tags: [x]
  - id: fixed
    input: { q: 1 }
    evaluators: [{ name: t_equals, options: { trim: true } }]
`;
    const d = dir({ 'suite.yaml': text, 'moved.yaml': text.replace('tests:\n', 'tests:\n  - input: first now\n') });
    const cases = await all(await loadSuite(join(d, 'suite.yaml')));
    expect(cases[0]).toMatchObject({
      tags: ['base', 'x'],
      metadata: { team: 'a' },
      evaluators: [{ name: 't_equals' }],
    });
    expect(cases[0]?.id).toMatch(/^case-[0-9a-f]{12}$/);
    expect(cases[1]?.id).toBe('fixed');
    expect(cases[1]?.evaluators[0]?.options).toEqual({ trim: true });
    // Inserting a case before it does not change a case's id (identity is content, not position).
    const moved = await all(await loadSuite(join(d, 'moved.yaml')));
    expect(moved[1]?.id).toBe(defined(cases[0], 'case 0').id);
  });

  it('streams cases from JSONL and CSV files and locates their errors', async () => {
    const d = dir({
      'suite.yaml': `version: "1.0"
name: files
agent: { adapter: t_agent }
evaluators: [t_equals]
tests:
  - file://cases.jsonl
  - file://cases.csv
`,
      'cases.jsonl': '{"id":"j1","input":"a","expected":"a"}\n\n{"id":"j2","input":"b","tags":["t"]}\n',
      'cases.csv': 'id,input,expected,tags,city\nc1,"hello, ""world""",hi,a;b,Paris\nc2,"multi\nline",,,\n',
    });
    const suite = await loadSuite(join(d, 'suite.yaml'));
    const cases = await all(suite);
    expect(cases.map((c) => c.id)).toEqual(['j1', 'j2', 'c1', 'c2']);
    expect(cases[2]).toMatchObject({
      input: 'hello, "world"',
      expected: 'hi',
      tags: ['a', 'b'],
      vars: { city: 'Paris' },
    });
    expect(cases[3]?.input).toBe('multi\nline');
    expect(suite.totalCases).toBe(4);
    expect(suite.contentHash).toMatch(/^[0-9a-f]{64}$/);

    const bad = dir({
      'suite.yaml': 'version: "1.0"\nname: b\nagent: { adapter: t_agent }\ntests: file://cases.jsonl\n',
      'cases.jsonl': '{"id":"a","input":"x"}\n{"id":"b","input":5}\n{"id":"a","input":"y"}\n{oops\n',
    });
    const { issues } = await validateSuite(join(bad, 'suite.yaml'));
    const lines = issues.map(formatIssue);
    expect(lines.some((l) => /cases\.jsonl:2:\d+: input: /.test(l))).toBe(true);
    expect(
      lines.some((l) => /cases\.jsonl:3:\d+: id: duplicate case id 'a' \(first at .*cases\.jsonl:1\)/.test(l)),
    ).toBe(true);
    expect(lines.some((l) => /cases\.jsonl:4:2: invalid JSON/.test(l))).toBe(true);
  });

  it('runs the cases it validated: a small suite keeps them, a suite over the cache size reads its files again', async () => {
    const files = {
      'suite.yaml': `version: "1.0"
name: kept
agent: { adapter: t_agent }
tests:
  - file://a.jsonl
  - file://b.jsonl
`,
      'a.jsonl': '{"id":"a1","input":"one"}\n{"id":"a2","input":"two"}\n',
      'b.jsonl': '{"id":"b1","input":"three"}\n',
    };
    // Degenerate first: no cache at all, so a file edited after loading is read as it is now.
    const streamed = dir(files);
    const uncached = await loadSuite(join(streamed, 'suite.yaml'), { caseCacheBytes: 0 });
    writeFileSync(join(streamed, 'a.jsonl'), '{"id":"a1","input":"edited"}\n');
    expect((await all(uncached)).map((c) => `${c.id}:${String(c.input)}`)).toEqual(['a1:edited', 'b1:three']);

    // Default: the cases run are the ones validated (and hashed), in file order, on every call.
    const kept = dir(files);
    const cached = await loadSuite(join(kept, 'suite.yaml'));
    writeFileSync(join(kept, 'a.jsonl'), '{"id":"a1","input":"edited"}\n');
    const first = (await all(cached)).map((c) => `${c.id}:${String(c.input)}`);
    expect(first).toEqual(['a1:one', 'a2:two', 'b1:three']);
    expect((await all(cached)).map((c) => `${c.id}:${String(c.input)}`)).toEqual(first);

    // Only the files that fit are kept: the first fits in 60 bytes, the second would pass the total and streams.
    const mixed = dir(files);
    const partly = await loadSuite(join(mixed, 'suite.yaml'), { caseCacheBytes: 60 });
    writeFileSync(join(mixed, 'a.jsonl'), '{"id":"a1","input":"edited"}\n');
    writeFileSync(join(mixed, 'b.jsonl'), '{"id":"b1","input":"edited"}\n');
    expect((await all(partly)).map((c) => `${c.id}:${String(c.input)}`)).toEqual(['a1:one', 'a2:two', 'b1:edited']);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the test name quotes the suite syntax.
  it('interpolates ${ENV} and remembers secret values for redaction', async () => {
    const d = dir({
      'suite.yaml': `version: "1.0"
name: env
agent:
  adapter: t_agent
  options: { token: "\${MY_API_TOKEN}", mode: "\${MODE:-b}" }
tests:
  - input: "\${MISSING_VAR}"
`,
    });
    const env = { MY_API_TOKEN: 'tok-abcdef-123' };
    const { issues } = await validateSuite(join(d, 'suite.yaml'), { env });
    expect(issues.map(formatIssue)).toEqual([
      expect.stringMatching(/suite\.yaml:7:12: tests\.0\.input: environment variable MISSING_VAR is not set/),
    ]);
    const ok = await loadSuite(join(d, 'suite.yaml'), { env: { ...env, MISSING_VAR: 'v' } });
    expect(ok.agent.options).toEqual({ token: 'tok-abcdef-123', mode: 'b' });
    expect(ok.redactor.text('header tok-abcdef-123')).toBe('header [REDACTED]');
  });

  it('rejects an unknown adapter with a suggestion', async () => {
    const d = dir({ 'suite.yaml': 'version: "1.0"\nname: a\nagent:\n  adapter: t_agnet\ntests: []\n' });
    const { issues } = await validateSuite(join(d, 'suite.yaml'));
    expect(issues.map(formatIssue)).toEqual([
      expect.stringMatching(/suite\.yaml:4:12: agent\.adapter: unknown adapter 't_agnet'; did you mean 't_agent'/),
    ]);
  });

  it('loads third-party plugins from a local module path before checking names', async () => {
    const plugin = join(process.cwd(), 'packages/harness/test/fixtures/plugins/local-plugin.ts');
    const d = dir({
      'suite.yaml': `version: "1.0"
name: p
plugins: [${plugin}]
agent: { adapter: t_agent }
evaluators: [{ name: t_local_plugin, options: { n: 1 } }]
tests: [{ input: a }]
`,
    });
    const suite = await loadSuite(join(d, 'suite.yaml'));
    expect(suite.evaluators[0]?.name).toBe('t_local_plugin');
  });
});
