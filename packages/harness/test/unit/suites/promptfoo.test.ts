import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentOutput } from '../../../src/core/agent.js';
import { TestCase } from '../../../src/core/testcase.js';
import { createEvaluator, PluginOptionsError } from '../../../src/evaluators/base.js';
import { convertPromptfoo, renderTemplate, suiteYaml, transformToPath } from '../../../src/suites/promptfoo.js';
import '../../../src/evaluators/index.js';
import { defined } from '../../helpers/defined.js';

const ctx = { baseDir: process.cwd(), env: {} };

function convert(files: Record<string, string>) {
  const d = mkdtempSync(join(tmpdir(), 'aeh-pfu-'));
  for (const [n, t] of Object.entries(files)) writeFileSync(join(d, n), t);
  return convertPromptfoo(
    join(d, 'promptfooconfig.yaml'),
    defined(files['promptfooconfig.yaml'], 'promptfooconfig.yaml'),
  );
}

describe('promptfoo conversion', () => {
  it('CSV tests (vars from columns, __expected assertions) and a file:// defaultTest', () => {
    const c = convert({
      'promptfooconfig.yaml': [
        'prompts: ["Translate to {{language}}: {{input}}"]',
        'providers: [echo]',
        'defaultTest: file://default.yaml',
        'tests: file://cases.csv',
      ].join('\n'),
      'default.yaml': 'vars: { language: French }\nassert:\n  - type: javascript\n    value: output.length > 0\n',
      'cases.csv':
        'input,__expected,__expected2,__description\nHello,contains: Bonjour,not-icontains: hello,greeting\nBye,Au revoir,,\n',
    });
    expect(c.unmapped).toEqual([]);
    const tests = c.suite.tests as { id: string; name: string; input: string; vars: object; evaluators: object[] }[];
    expect(tests.map((t) => [t.id, t.name, t.input])).toEqual([
      ['test-1', 'greeting', 'Translate to French: Hello'],
      ['test-2', 'test 2', 'Translate to French: Bye'],
    ]);
    expect(tests[0]?.vars).toEqual({ language: 'French', input: 'Hello' });
    expect(tests[0]?.evaluators).toEqual([
      { name: 'javascript_inline', options: { code: 'output.length > 0' } },
      { name: 'contains', options: { substring: 'Bonjour', case_sensitive: true } },
      { name: 'contains', options: { substring: 'hello', case_sensitive: false }, not: true },
    ]);
    expect(tests[1]?.evaluators[1]).toEqual({
      name: 'exact_match',
      options: { value: 'Au revoir', strip_whitespace: false },
    });
  });

  it('lists what it cannot convert with file:line:col: unknown providers, Nunjucks tags, missing vars', () => {
    const c = convert({
      'promptfooconfig.yaml': [
        'prompts:',
        '  - "{% if x %}hi{% endif %}"',
        '  - "Hi {{ name }}"',
        'providers:',
        '  - exec:python agent.py',
        '  - echo',
        'tests:',
        '  - vars: { other: 1 }',
        '    assert: [{ type: contains, value: hi }, { type: webhook, value: http://x }]',
      ].join('\n'),
    });
    const messages = c.unmapped.map((i) => `${i.line}:${i.col} ${i.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^5:5 provider 'exec:python agent\.py' has no equivalent here/),
      expect.stringMatching(/^9:45 assertion type 'webhook' has no equivalent/),
      expect.stringMatching(/^2:5 prompt uses Nunjucks tags/),
      expect.stringMatching(/^3:5 prompt placeholder '\{\{ name \}\}': no var 'name' in this test/),
    ]);
  });

  it('fields that would change what runs or how it is judged are listed, never ignored', () => {
    const c = convert({
      'promptfooconfig.yaml': [
        'outputPath: results.json',
        'scenarios: []',
        'prompts: ["{{q}}"]',
        'providers: [echo, { id: http, config: { url: "http://127.0.0.1:1/x", transformRequest: "x" } }]',
        'tests:',
        '  - vars: { q: x }',
        '    options: { transform: output.toUpperCase() }',
        '    threshold: 0.5',
        '    assert:',
        '      - { type: contains, value: X, transform: output.toUpperCase() }',
        '      - { type: contains, value: x, metric: accuracy }',
      ].join('\n'),
    });
    expect(c.unmapped.map((i) => `${i.line}:${i.col} ${i.message}`)).toEqual([
      "2:1 'scenarios' has no equivalent here; remove it or express it in the suite",
      '4:70 http provider: config.transformRequest has no equivalent here',
      "7:5 test field 'options' has no equivalent here; the case would be judged differently",
      "8:5 test field 'threshold' has no equivalent here; the case would be judged differently",
      "10:37 assertion field 'transform' has no equivalent here",
    ]);
    expect(c.notes).toContain('outputPath: promptfoo output setting, not used by the harness');
    // The assertion with only a label (metric) converts; the one with a transform does not.
    const [t] = c.suite.tests as { evaluators: { options: { substring: string } }[] }[];
    expect(defined(t, 'the converted test').evaluators.map((e) => e.options.substring)).toEqual(['x']);
  });

  it('the written suite repeats shared evaluators instead of using YAML aliases', async () => {
    const c = convert({
      'promptfooconfig.yaml':
        'prompts: ["A {{q}}", "B {{q}}"]\nproviders: [echo]\ntests:\n  - vars: { q: x }\n    assert: [{ type: contains, value: x }]\n',
    });
    const text = await suiteYaml(c, 'promptfooconfig.yaml');
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text.match(/name: contains/g)).toHaveLength(2);
  });

  it('transformResponse paths', () => {
    expect(transformToPath('json.output')).toBe('$.output');
    expect(transformToPath('json.choices[0].message.content')).toBe('$.choices[0].message.content');
    expect(transformToPath('(json) => json.data["answer"]')).toBe("$.data['answer']");
    expect(transformToPath('(json, text) => json.a')).toBe('$.a');
    expect(transformToPath('text')).toBe('text');
    expect(transformToPath('json.a.map(x => x.b).join()')).toBeUndefined();
    expect(transformToPath('fetch("http://evil")')).toBeUndefined();
  });

  it('templates: vars, dotted paths, dump; never evaluates expressions', () => {
    expect(renderTemplate('{{a}} {{ b.c }} {{ d | dump }}', { a: 'x', b: { c: 2 }, d: { e: 1 } })).toBe('x 2 {"e":1}');
    expect(() => renderTemplate('{{ a + 1 }}', { a: 1 })).toThrow(/only \{\{ var \}\}/);
    expect(() => renderTemplate('{{ constructor.constructor }}', {})).toThrow(/no var/);
  });
});

describe('javascript_inline (promptfoo javascript assertions)', () => {
  const run = async (code: string, output: string | object, threshold?: number) => {
    const ev = createEvaluator(
      { name: 'javascript_inline', options: { code, ...(threshold !== undefined ? { threshold } : {}) }, weight: 1 },
      ctx,
    );
    return ev.evaluate(
      TestCase.parse({ id: 'c', name: 'c', input: 'q', vars: { topic: 'geo' } }),
      agentOutput(typeof output === 'string' ? { output } : { output: output as Record<string, unknown> }),
    );
  };
  it('an errored agent output never passes, whatever the code says', async () => {
    const ev = createEvaluator({ name: 'javascript_inline', options: { code: 'true' }, weight: 1 }, ctx);
    const r = await ev.evaluate(TestCase.parse({ id: 'c', name: 'c', input: 'q' }), agentOutput({ error: 'down' }));
    expect(r).toMatchObject({ passed: false, score: 0 });
  });
  it('booleans, numbers with and without threshold, objects, and the context', async () => {
    expect(await run("output.includes('Paris')", 'Paris!')).toMatchObject({ passed: true, score: 1 });
    expect(await run("output.includes('Paris')", 'Rome')).toMatchObject({ passed: false, score: 0 });
    expect(await run('output.length / 10', 'abc', 0.5)).toMatchObject({ passed: false, score: 0.3 });
    expect(await run('output.length / 10', 'abcdef', 0.5)).toMatchObject({ passed: true, score: 0.6 });
    expect(await run('Math.log(output.length) * 10', 'abcdef')).toMatchObject({ passed: true, score: 1 });
    expect(await run('return { pass: false, score: 0.2, reason: "too short" };', 'x')).toMatchObject({
      passed: false,
      score: 0.2,
      explanation: 'too short',
    });
    expect(await run("context.vars.topic === 'geo' && output.city === 'Paris'", { city: 'Paris' })).toMatchObject({
      passed: true,
    });
  });
  it('code that throws or returns nonsense is an evaluator error; code that does not compile fails validation', async () => {
    expect(await run("throw new Error('nope')", 'x')).toMatchObject({ error: true, passed: false });
    expect((await run('undefined', 'x')).explanation).toMatch(/expected a boolean, a number/);
    expect((await run('NaN', 'x')).error).toBe(true);
    expect(() => createEvaluator({ name: 'javascript_inline', options: { code: 'output.(' }, weight: 1 }, ctx)).toThrow(
      PluginOptionsError,
    );
  });
});
