import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../helpers/defined.js';

// promptfoo configs written in promptfoo's documented format (promptfoo.dev/docs/configuration), run by the
// compiled CLI against a real HTTP agent on a loopback port; every case's verdict is checked.
const root = resolve(__dirname, '../../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');

let server: Server;
let port = 0;
const requests: unknown[] = [];

/** The agent under test: answers by keyword, wrapped the way many services wrap replies ({ reply: { text } }). */
function answer(message: string): string | null {
  if (message.includes('boom')) return null;
  if (/capital of France/i.test(message)) return 'Paris is the capital of France.';
  if (/JSON/.test(message)) return '{"city": "Paris", "population": 2100000}';
  if (/mixed/i.test(message)) return 'Here it is: {"ok": true} (as asked)';
  return "I don't know.";
}

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
  }
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}') as { message?: string };
      requests.push(parsed);
      const text = answer(String(parsed.message ?? ''));
      if (text === null) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ reply: { text }, model: 'kw-1' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The CLI in a child process, asynchronously (the loopback server lives in this process). */
function harness(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function workdir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-pf-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

const config = () => `# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json
description: geography-bot
prompts:
  - "Question: {{question}}"
providers:
  - id: http
    config:
      url: http://127.0.0.1:${port}/chat
      method: POST
      headers:
        Content-Type: application/json
      body:
        message: "{{prompt}}"
      transformResponse: json.reply.text
defaultTest:
  vars:
    topic: geography
  assert:
    - type: latency
      threshold: 20000
tests:
  - description: capital
    vars:
      question: What is the capital of France?
    assert:
      - type: icontains
        value: paris
      - type: contains
        value: Paris
      - type: not-contains
        value: London
      - type: regex
        value: "^Paris\\\\b"
      - type: javascript
        value: "output.length < 100 && context.vars.topic === 'geography'"
      - type: javascript
        value: output.length / 100
        threshold: 0.2
  - description: equals needs the exact text
    vars:
      question: What is the capital of France?
    assert:
      - type: equals
        value: Paris
  - description: json answer
    vars:
      question: Give JSON for Paris
    assert:
      - type: is-json
      - type: is-json
        value:
          type: object
          required: [city, population]
          properties:
            population: { type: number }
      - type: equals
        value: { city: Paris, population: 2100000 }
  - description: json inside prose
    vars:
      question: a mixed answer please
    assert:
      - type: contains-json
      - type: is-json
  - description: server error never passes
    vars:
      question: boom
    assert:
      - type: not-contains
        value: Paris
  - file://more-tests.yaml
`;

const moreTests = `- description: admits ignorance
  vars:
    question: Who won the regatta in 1850?
  assert:
    - type: icontains-any
      value: ["don't know", "not sure"]
    - type: starts-with
      value: "I don"
- description: wrong start
  vars:
    question: Who won the regatta in 1850?
  assert:
    - type: starts-with
      value: "Yes"
`;

describe('harness run promptfooconfig.yaml (http provider with transformResponse, loopback server)', () => {
  it('runs the config directly and every case gets the verdict its assertions mean', async () => {
    const d = workdir({ 'promptfooconfig.yaml': config(), 'more-tests.yaml': moreTests });
    const r = await harness(['run', 'promptfooconfig.yaml', '--out', 'run', '--no-index', '--format', 'json'], d);
    expect(r.code, r.stderr).toBe(0);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    const byId = Object.fromEntries(
      (exp.results as { test_id: string; status: string; evaluations: { evaluator: string; passed: boolean }[] }[]).map(
        (x) => [x.test_id, x],
      ),
    );
    const status = Object.fromEntries(Object.entries(byId).map(([k, v]) => [k, v.status]));
    expect(status).toEqual({
      'test-1': 'passed',
      'test-2': 'failed',
      'test-3': 'passed',
      'test-4': 'failed',
      'test-5': 'error',
      'test-6': 'passed',
      'test-7': 'failed',
    });
    // Each assertion's own verdict, not only the case's.
    const verdicts = (id: string) =>
      defined(byId[id], `the result of ${id}`).evaluations.map((e) => `${e.evaluator}:${e.passed}`);
    expect(verdicts('test-1')).toEqual([
      'latency_budget:true', // from defaultTest, first
      'contains:true', // icontains paris
      'contains:true',
      'contains:true', // not-contains London
      'regex_match:true',
      'javascript_inline:true', // sees context.vars.topic from defaultTest
      'javascript_inline:true', // 31 chars / 100 = 0.31 >= 0.2
    ]);
    expect(verdicts('test-2')).toEqual(['latency_budget:true', 'exact_match:false']);
    expect(verdicts('test-3')).toEqual(['latency_budget:true', 'is_json:true', 'json_schema:true', 'json_match:true']);
    expect(verdicts('test-4')).toEqual(['latency_budget:true', 'json_schema:true', 'is_json:false']);
    expect(verdicts('test-5').every((v) => v.endsWith(':false'))).toBe(true);
    expect(verdicts('test-6')).toEqual(['latency_budget:true', 'contains:true', 'starts_with:true']);
    expect(verdicts('test-7')).toEqual(['latency_budget:true', 'starts_with:false']);

    // The prompt was rendered from the vars and sent through the body template.
    expect(requests).toContainEqual({ message: 'Question: What is the capital of France?' });
    const capital = exp.results.find((x: { test_id: string }) => x.test_id === 'test-1');
    expect(capital.output.output).toBe('Paris is the capital of France.'); // transformResponse applied
    expect(capital.input).toBe('Question: What is the capital of France?');
  }, 120_000);

  it('refuses to run a config with an assertion it cannot honour, naming the line (exit 2, nothing sent)', async () => {
    const before = requests.length;
    const d = workdir({
      'promptfooconfig.yaml': `${config().replace('file://more-tests.yaml', 'file://more-tests.yaml\n  - vars: { question: x }\n    assert:\n      - type: similar\n        value: Paris\n        threshold: 0.8')}`,
      'more-tests.yaml': moreTests,
    });
    const r = await harness(['run', 'promptfooconfig.yaml', '--out', 'run', '--no-index'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/promptfooconfig\.yaml:\d+:\d+: .*similar: needs an embedding model/);
    expect(requests.length).toBe(before);
  }, 60_000);

  it('two prompts x two providers: one case each, each routed to its own provider', async () => {
    const d = workdir({
      'promptfooconfig.yaml': `prompts:
  - "Question: {{question}}"
  - "Answer briefly: {{question}}"
providers:
  - echo
  - id: http://127.0.0.1:${port}/chat
    label: keyword-bot
    config:
      body: { message: "{{prompt}}" }
      transformResponse: "(json) => json.reply.text"
tests:
  - vars: { question: What is the capital of France? }
    assert:
      - type: contains
        value: Paris
`,
    });
    const r = await harness(['run', 'promptfooconfig.yaml', '--out', 'run', '--no-index', '--format', 'json'], d);
    expect(r.code, r.stderr).toBe(0);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    const status = Object.fromEntries(
      exp.results.map((x: { test_id: string; status: string }) => [x.test_id, x.status]),
    );
    // echo repeats the prompt (no "Paris"); the keyword bot answers it.
    expect(status).toEqual({
      'test-1-prompt-1-echo': 'failed',
      'test-1-prompt-1-keyword-bot': 'passed',
      'test-1-prompt-2-echo': 'failed',
      'test-1-prompt-2-keyword-bot': 'passed',
    });
    const echoed = exp.results.find((x: { test_id: string }) => x.test_id === 'test-1-prompt-2-echo');
    expect(echoed.output.output).toBe('Answer briefly: What is the capital of France?');
  }, 60_000);
});

describe('harness import promptfoo', () => {
  it('writes a suite that validates and runs with the same verdicts, listing what it could not convert', async () => {
    const text = `${config()}  - vars: { question: Describe Paris }
    assert:
      - type: similar
        value: Paris is a city in France
      - type: llm-rubric
        value: Mentions the Seine
      - type: cost
        threshold: 0.002
      - type: levenshtein
        value: Paris
`;
    const d = workdir({ 'promptfooconfig.yaml': text, 'more-tests.yaml': moreTests });
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    const imp = await harness(['import', 'promptfoo', 'promptfooconfig.yaml', '--out', 'suite.yaml'], d);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stderr).toMatch(/converted promptfooconfig\.yaml: 8 cases written to suite\.yaml/);
    expect(imp.stderr).toMatch(/2 item\(s\) not converted/);
    expect(imp.stderr).toContain(
      `promptfooconfig.yaml:${lineOf('type: similar')}:9: tests.6.assert.0: similar: needs an embedding model`,
    );
    expect(imp.stderr).toContain(
      `promptfooconfig.yaml:${lineOf('type: levenshtein')}:9: tests.6.assert.3: assertion type 'levenshtein' has no equivalent`,
    );
    const suite = readFileSync(join(d, 'suite.yaml'), 'utf8');
    expect(suite).toMatch(/name: llm_rubric\n\s+options:\n\s+rubric: Mentions the Seine/);
    expect(suite).toMatch(/name: cost_budget\n\s+options:\n\s+max: 0.002/);
    expect(suite).toMatch(/adapter: http/);
    expect(suite).toMatch(/output: \$\.reply\.text/);
    expect(await harness(['validate', 'suite.yaml'], d)).toMatchObject({ code: 0 });
    // Run the converted suite without the LLM-judged case; the verdicts match the direct run.
    const trimmed = suite.replace(/\n {2}- id: test-8[\s\S]*$/, '\n');
    writeFileSync(join(d, 'suite.yaml'), trimmed);
    const r = await harness(['run', 'suite.yaml', '--out', 'run', '--no-index', '--format', 'json'], d);
    expect(r.code, r.stderr).toBe(0);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    const status = Object.fromEntries(
      exp.results.map((x: { test_id: string; status: string }) => [x.test_id, x.status]),
    );
    expect(status).toEqual({
      'test-1': 'passed',
      'test-2': 'failed',
      'test-3': 'passed',
      'test-4': 'failed',
      'test-5': 'error',
      'test-6': 'passed',
      'test-7': 'failed',
    });
  }, 120_000);

  it('a file that is not a promptfoo config is exit 2', async () => {
    const d = workdir({ 'x.yaml': 'hello: world\n' });
    const r = await harness(['import', 'promptfoo', 'x.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a promptfoo config/);
    expect((await harness(['import', 'promptfoo', 'missing.yaml'], d)).code).toBe(2);
  }, 60_000);
});
