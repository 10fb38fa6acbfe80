import { describe, expect, it } from 'vitest';
import { adapterRegistry, type RunContext } from '../../../src/adapters/index.js';
import { TestCase } from '../../../src/core/testcase.js';
import { parseOptions } from '../../../src/evaluators/base.js';

const ctx = { baseDir: process.cwd(), env: {} };

async function route(options: Record<string, unknown>) {
  const plugin = adapterRegistry.get('route');
  return plugin.create(parseOptions(plugin, options) as never, ctx);
}

function runCtx(vars: Record<string, unknown>): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id: 'c', name: 'c', input: 'hi' }),
    repeat: 0,
    attempt: 1,
    vars,
  };
}

describe('route adapter', () => {
  const agents = { loud: { adapter: 'echo', options: { prefix: 'LOUD ' } }, quiet: { adapter: 'echo' } };

  it('a case naming no agent is an errored output, never sent to another agent', async () => {
    const agent = await route({ agents });
    for (const provider of [undefined, 'missing', '__proto__', 'constructor', 42]) {
      const out = await agent.run('hi', runCtx(provider === undefined ? {} : { provider }));
      expect(out.error, String(provider)).toMatch(/^no agent for provider '.*' \(known: loud, quiet\)$/);
      expect(out.output).toBe('');
    }
  });

  it('sends each case to the agent its vars name (any variable with `by`)', async () => {
    expect((await (await route({ agents })).run('hi', runCtx({ provider: 'loud' }))).output).toBe('LOUD hi');
    expect((await (await route({ agents, by: 'model' })).run('hi', runCtx({ model: 'quiet' }))).output).toBe('hi');
  });

  it('validates every agent up front: unknown adapters, bad options, nested routes, no agents', async () => {
    await expect(route({ agents: { a: { adapter: 'nope' } } })).rejects.toThrow(/unknown adapter 'nope'/);
    await expect(route({ agents: { a: { adapter: 'echo', options: { prefx: 1 } } } })).rejects.toThrow(/prefx/);
    await expect(route({ agents: { a: { adapter: 'route', options: { agents } } } })).rejects.toThrow(
      /a route cannot contain another route/,
    );
    await expect(route({ agents: {} })).rejects.toThrow(/at least one agent/);
  });
});
