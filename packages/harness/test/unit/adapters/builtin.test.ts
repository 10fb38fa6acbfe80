import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Agent, adapterRegistry, type RunContext } from '../../../src/adapters/base.js';
import '../../../src/adapters/index.js';
import { parseOptions } from '../../../src/evaluators/base.js';

const fixtures = resolve(__dirname, '../../fixtures/agents');

async function make(name: string, options: unknown): Promise<Agent> {
  const plugin = adapterRegistry.get(name);
  return plugin.create(parseOptions(plugin, options) as never, { baseDir: fixtures, env: {} });
}

function ctx(signal = new AbortController().signal): RunContext {
  return {
    signal,
    repeat: 0,
    attempt: 1,
    vars: {},
    testCase: {
      id: 'x',
      name: 'x',
      description: null,
      input: '',
      evaluators: [],
      tags: [],
      metadata: {},
      timeout: null,
      repeat: null,
      vars: {},
    },
  };
}

describe('echo adapter', () => {
  it('echoes text and objects with a prefix', async () => {
    const agent = await make('echo', { prefix: '> ' });
    expect((await agent.run('hi', ctx())).output).toBe('> hi');
    expect((await agent.run({ a: 1 }, ctx())).output).toBe('> {"a":1}');
  });
});

describe('mock adapter', () => {
  const options = {
    responses: [
      { input: 'exact', output: 'by input' },
      {
        contains: 'REFUND',
        output: 'by substring',
        tool_calls: [{ tool_name: 'refund', args: { n: 1 } }],
        latency: 0.3,
      },
      { pattern: '^\\d+$', output: { kind: 'number' }, usage: { input_tokens: 3, output_tokens: 4 }, cost: 0.01 },
      { contains: 'down', error: 'HTTP 503', transient: true, retry_after: 2 },
    ],
    default_output: 'fallback',
  };
  it('picks the first matching canned response and records tools, usage and latency', async () => {
    const agent = await make('mock', options);
    expect((await agent.run('exact', ctx())).output).toBe('by input');
    const refund = await agent.run('I want a refund', ctx());
    expect(refund).toMatchObject({ output: 'by substring', latency: 0.3 });
    expect(refund.tool_calls[0]).toMatchObject({ tool_name: 'refund', args: { n: 1 } });
    expect(refund.trace?.tool_calls).toHaveLength(1);
    expect(await agent.run('123', ctx())).toMatchObject({ output: { kind: 'number' }, cost: 0.01 });
    expect(await agent.run('server down', ctx())).toMatchObject({ error: 'HTTP 503', transient: true, retry_after: 2 });
    expect((await agent.run('anything else', ctx())).output).toBe('fallback');
  });
});

describe('module adapter', () => {
  it('runs an exported class (constructed with options), function, or object-returning function', async () => {
    const cls = await make('module', { module: './class-agent.ts#Shouter', options: { suffix: '!' } });
    const out = await cls.run('hey', ctx());
    expect(out.output).toBe('HEY!');
    expect(out.tool_calls[0]).toMatchObject({ tool_name: 'shout', args: { text: 'hey' } });
    expect((await (await make('module', { module: './class-agent.ts#plain' })).run('a', ctx())).output).toBe('plain:a');
    expect((await (await make('module', { module: './class-agent.ts#structured' })).run('a', ctx())).output).toEqual({
      answer: 42,
    });
  });

  it('names the exports when the requested one is missing', async () => {
    await expect(make('module', { module: `${join(fixtures, 'class-agent.ts')}#nope` })).rejects.toThrow(
      /has no export 'nope' \(exports: .*Shouter/,
    );
  });
});
