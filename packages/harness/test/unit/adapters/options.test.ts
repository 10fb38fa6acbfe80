import { describe, expect, it } from 'vitest';
import { HttpOptions } from '../../../src/adapters/http/options.js';
import { McpOptions } from '../../../src/adapters/mcp/options.js';
import { ModelOptions } from '../../../src/adapters/model/options.js';
import { SubprocessOptions } from '../../../src/adapters/subprocess/options.js';

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
