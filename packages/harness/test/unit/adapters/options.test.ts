import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpOptions } from '../../../src/adapters/http/options.js';
import { McpOptions } from '../../../src/adapters/mcp/options.js';
import { ModelOptions } from '../../../src/adapters/model/options.js';
import { SubprocessOptions } from '../../../src/adapters/subprocess/options.js';
import { loadBuiltins } from '../../../src/cli/common.js';
import { validateSuite } from '../../../src/suites/loader.js';

function issues(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  return (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('adapter option schemas catch template and JSON-path mistakes (so `harness validate` reports them)', () => {
  it('http', () => {
    const r = HttpOptions.safeParse({
      url: 'http://x/{{inptu}}',
      headers: { 'x-a': '{{vars.a | nope}}' },
      body: { nested: { q: '{{input.}}' } },
      response: { output: '$.a[', usage: { input_tokens: '$..x' } },
      stream_delta: '$[x]',
    });
    expect(issues(r)).toEqual([
      "url: unknown template variable 'inptu' in '{{inptu}}' (expected one of input, vars, env, test, repeat, attempt)",
      "headers.x-a: unknown filter 'nope' in '{{vars.a | nope}}' (expected json, urlencode or raw)",
      expect.stringMatching(/^body\.nested\.q: bad path in '\{\{input\.\}\}'/),
      "response.output: invalid JSON path '$.a[': unclosed '[' at column 4",
      "response.usage.input_tokens: invalid JSON path '$..x': expected a name at column 3",
      "stream_delta: invalid JSON path '$[x]': expected an index, '*' or a quoted name at column 3",
    ]);
    expect(HttpOptions.safeParse({ url: 'http://x/{{test.id}}', body: { q: '{{input}}' } }).success).toBe(true);
  });

  it('subprocess, mcp and model', () => {
    expect(issues(SubprocessOptions.safeParse({ command: ['node', '{{vars.a'], env: { A: '{{bad}}' } }))).toEqual([
      "env.A: unknown template variable 'bad' in '{{bad}}' (expected one of input, vars, env, test, repeat, attempt)",
    ]);
    expect(issues(McpOptions.safeParse({ command: 'x', tool: 't', arguments: { a: '{{nope}}' } }))[0]).toMatch(
      /^arguments\.a: unknown template variable 'nope'/,
    );
    expect(
      issues(ModelOptions.safeParse({ provider: 'mock', messages: [{ role: 'user', content: '{{x}}' }] }))[0],
    ).toMatch(/^messages\.0\.content: unknown template variable 'x'/);
  });
});

describe('adapter timeouts a timer cannot hold are refused, naming the option', () => {
  const tooLong = /at most 2147483\.647 seconds/;
  it('http, subprocess, mcp and model', () => {
    const http = issues(HttpOptions.safeParse({ url: 'http://127.0.0.1:1/', timeout: 1e12, connect_timeout: 3e6 }));
    expect(http).toEqual([expect.stringMatching(/^timeout: /), expect.stringMatching(/^connect_timeout: /)]);
    expect(http[0]).toMatch(tooLong);
    expect(issues(SubprocessOptions.safeParse({ command: ['x'], timeout: 1e10 }))).toEqual([
      expect.stringMatching(/^timeout: at most 2147483\.647 seconds/),
    ]);
    expect(issues(McpOptions.safeParse({ command: 'x', tool: 't', call_timeout: 1e10 }))).toEqual([
      expect.stringMatching(/^call_timeout: at most 2147483\.647 seconds/),
    ]);
    expect(issues(ModelOptions.safeParse({ provider: 'mock', timeout: 1e10 }))).toEqual([
      expect.stringMatching(/^timeout: at most 2147483\.647 seconds/),
    ]);
    // A long but holdable timeout is still fine.
    expect(HttpOptions.safeParse({ url: 'http://127.0.0.1:1/', timeout: 86_400 }).success).toBe(true);
  });

  it('in a suite, with file:line:col', async () => {
    await loadBuiltins();
    const dir = mkdtempSync(join(tmpdir(), 'aeh-timeouts-'));
    const path = join(dir, 's.yaml');
    writeFileSync(
      path,
      'version: "1.0"\nname: s\nagent:\n  adapter: http\n  options: { url: "http://127.0.0.1:1/", timeout: 1e12 }\ntests: []\n',
    );
    const { issues: found } = await validateSuite(path);
    expect(found.map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual(['5:51 agent.options.timeout']);
    expect(found[0]?.message).toMatch(tooLong);
  });
});

describe('suite checks for values that can never work', () => {
  it('a request rate whose spacing a timer cannot hold is refused, with file:line:col', async () => {
    expect(issues(HttpOptions.safeParse({ url: 'http://127.0.0.1:1/', requests_per_minute: 1e-6 }))).toEqual([
      expect.stringMatching(/^requests_per_minute: at least 2\.79\d*e-5/),
    ]);
    // One call a day is slow but holdable.
    expect(HttpOptions.safeParse({ url: 'http://127.0.0.1:1/', requests_per_minute: 1 / 1440 }).success).toBe(true);
    await loadBuiltins();
    const dir = mkdtempSync(join(tmpdir(), 'aeh-limits-'));
    const path = join(dir, 's.yaml');
    writeFileSync(
      path,
      'version: "1.0"\nname: s\nagent:\n  adapter: http\n  options: { url: "http://127.0.0.1:1/", requests_per_minute: 0.00001 }\ntests: []\n',
    );
    const { issues: found } = await validateSuite(path);
    expect(found.map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual(['5:63 agent.options.requests_per_minute']);
  });

  it('a threshold whose minimum is above its maximum is refused at its minimum, before any case runs', async () => {
    await loadBuiltins();
    const dir = mkdtempSync(join(tmpdir(), 'aeh-thresholds-'));
    const path = join(dir, 's.yaml');
    writeFileSync(
      path,
      [
        'version: "1.0"',
        'name: s',
        'agent: { adapter: http, options: { url: "http://127.0.0.1:1/" } }',
        'metrics: [success_rate]',
        'thresholds:',
        '  success_rate: { minimum: 0.9, maximum: 0.5 }',
        'tests: [{ input: hi }]',
        '',
      ].join('\n'),
    );
    const { issues: found } = await validateSuite(path);
    expect(found.map((i) => `${i.line}:${i.col} ${i.path} ${i.message}`)).toEqual([
      "6:28 thresholds.success_rate.minimum threshold on 'success_rate': minimum 0.9 is above maximum 0.5, so no result can pass it",
    ]);
  });
});
