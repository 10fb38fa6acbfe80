import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { McpOptions, type McpOptionsInput } from '../../../src/adapters/mcp/options.js';
import { mcpAdapter } from '../../../src/adapters/mcp.js';
import { toolCalls } from '../../../src/core/agent.js';
import { TestCase } from '../../../src/core/testcase.js';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const serverScript = `${root}examples/mcp-agent/server.mjs`;
const agents: Agent[] = [];
let httpServer: ChildProcess;
let httpUrl = '';

function ctx(input: unknown, extra: Partial<RunContext> = {}): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id: 'mcp-1', name: 'MCP case', input }),
    repeat: 0,
    attempt: 1,
    vars: { user: 'ann' },
    ...extra,
  };
}

async function make(options: McpOptionsInput): Promise<Agent> {
  const agent = await mcpAdapter.create(McpOptions.parse(options), { baseDir: root, env: process.env });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  httpServer = spawn(process.execPath, [serverScript, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  httpUrl = await new Promise<string>((resolve, reject) => {
    let text = '';
    httpServer.stdout?.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /listening on (\S+)/.exec(text);
      if (m?.[1]) resolve(m[1]);
    });
    httpServer.on('exit', (code) => reject(new Error(`MCP HTTP server exited with ${code}`)));
  });
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close?.()));
  if (httpServer.pid) process.kill(httpServer.pid);
});

const transports = [
  ['stdio', () => ({ command: [process.execPath, serverScript] })],
  ['Streamable HTTP', () => ({ url: httpUrl })],
] as const;

describe.each(transports)('mcp adapter over %s', (_name, where) => {
  it('calls a named tool as the agent; the agent-reported trajectory is what evaluators see', async () => {
    const agent = await make({ ...where(), tool: 'run_agent' });
    const out = await agent.run('what is 2+3', ctx('what is 2+3'));
    expect(out.error).toBeNull();
    expect(out.output).toBe('The answer is 5.');
    expect(out.tool_calls).toEqual([expect.objectContaining({ tool_name: 'add', args: { a: 2, b: 3 }, result: 5 })]);
    const mcpCall = out.metadata.mcp_call as Record<string, unknown>;
    expect(mcpCall).toMatchObject({ tool_name: 'run_agent', args: { input: 'what is 2+3' }, status: 'success' });
    expect(mcpCall.duration).toBeGreaterThan(0);
    expect(out.trace?.spans[0]).toMatchObject({ name: 'mcp.call run_agent', kind: 'client' });

    // An empty reported trajectory stays empty (the run_agent call is not counted as an agent tool call).
    const talk = await agent.run('hello', ctx('hello'));
    expect(toolCalls(talk)).toEqual([]);
  });

  it('maps input to arguments with a template and the reply with JSON paths', async () => {
    const agent = await make({
      ...where(),
      tool: 'run_agent',
      arguments: { input: '{{input.question}}', user: '{{vars.user}}' },
      response: { output: '$.output' },
    });
    const out = await agent.run({ question: 'hello' }, ctx({ question: 'hello' }));
    expect(out.output).toBe('You said: hello (as ann)');
    // No trajectory mapped: the MCP call itself is the recorded tool call.
    expect(out.tool_calls).toEqual([
      expect.objectContaining({ tool_name: 'run_agent', args: { input: 'hello', user: 'ann' }, status: 'success' }),
    ]);
  });

  it('reports a tool error as an adapter error in agent mode', async () => {
    const agent = await make({ ...where(), tool: 'fail' });
    const out = await agent.run('x', ctx('x'));
    expect(out.error).toBe("MCP tool 'fail' returned an error: this tool always fails");
    expect(out.tool_calls[0]).toMatchObject({ status: 'error', error: 'this tool always fails' });
  });

  it('lists tools and calls them directly in tools mode', async () => {
    const agent = await make({ ...where() });
    const listed = await agent.run('list_tools', ctx('list_tools'));
    const names = (listed.output as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(names).toEqual(['add', 'fail', 'lookup_user', 'run_agent', 'slow']);

    const out = await agent.run(
      {
        calls: [
          { tool: 'add', arguments: { a: 1, b: 2 } },
          { tool: 'lookup_user', arguments: { id: 'nobody' } },
        ],
      },
      ctx('calls'),
    );
    expect(out.error).toBeNull();
    expect(out.tool_calls).toEqual([
      expect.objectContaining({ tool_name: 'add', args: { a: 1, b: 2 }, result: { sum: 3 }, status: 'success' }),
      expect.objectContaining({ tool_name: 'lookup_user', status: 'error', error: 'no user nobody' }),
    ]);
    expect(out.output).toEqual({ results: [{ sum: 3 }, 'no user nobody'] });
  });

  it('fails the case on an unknown tool and on the per-call timeout', async () => {
    // The timeout binds every call here: 2 s leaves the quick calls room on a loaded machine (0.3 s did not).
    const agent = await make({ ...where(), call_timeout: 2 });
    const unknown = await agent.run({ tool: 'nope' }, ctx('nope'));
    expect(unknown.error).toMatch(/^MCP call to 'nope' failed: unknown tool: the server offers 'add', /);
    expect(unknown.tool_calls[0]).toMatchObject({ tool_name: 'nope', status: 'error' });
    const slow = await agent.run({ tool: 'slow', arguments: { ms: 10_000 } }, ctx('slow'));
    expect(slow.error).toBe("MCP call to 'slow' failed: no reply within 2 s (call_timeout)");
    expect(slow.tool_calls[0]).toMatchObject({ tool_name: 'slow', status: 'error' });
    // The connection survives a timed-out call.
    expect((await agent.run({ tool: 'add', arguments: { a: 2, b: 2 } }, ctx('add'))).output).toEqual({ sum: 4 });
  });
});

describe('mcp adapter against a server that answers unknown tools with isError (like server-everything)', () => {
  const lenient = fileURLToPath(new URL('./agents/lenient-mcp-server.mjs', import.meta.url));

  it('fails the case (adapter error) instead of recording a tool error, in tools and agent mode', async () => {
    const tools = await make({ command: [process.execPath, lenient] });
    const unknown = await tools.run({ tool: 'get_summ', arguments: { a: 1, b: 2 } }, ctx('x'));
    // The second page of tools/list was read: get_sum is offered and suggested.
    expect(unknown.error).toBe(
      "MCP call to 'get_summ' failed: unknown tool: the server offers 'echo', 'get_sum' (did you mean 'get_sum'?)",
    );
    expect(unknown.output).toBe('');
    const agent = await make({ command: [process.execPath, lenient], tool: 'run_agent' });
    expect((await agent.run('hello', ctx('hello'))).error).toMatch(/^MCP call to 'run_agent' failed: unknown tool/);
  });

  it('still calls the tools the server offers, on either page of its list', async () => {
    const tools = await make({ command: [process.execPath, lenient] });
    const out = await tools.run(
      {
        calls: [
          { tool: 'echo', arguments: { message: 'hi' } },
          { tool: 'get_sum', arguments: { a: 2, b: 3 } },
        ],
      },
      ctx('x'),
    );
    expect(out.error).toBeNull();
    expect(out.output).toEqual({ results: ['Echo: hi', '5'] });
  });
});

describe('mcp adapter failures', () => {
  it('names a server command that cannot start', async () => {
    const agent = await make({ command: 'no-such-mcp-server-binary', tool: 'run_agent', connect_timeout: 5 });
    const out = await agent.run('x', ctx('x'));
    expect(out.error).toMatch(/^MCP stdio: .*(ENOENT|spawn|closed)/i);
  });

  it('marks an unreachable HTTP server as transient', async () => {
    const agent = await make({ url: 'http://127.0.0.1:9/mcp', tool: 'run_agent', connect_timeout: 5 });
    const out = await agent.run('x', ctx('x'));
    expect(out.error).toMatch(/^MCP http:/);
    expect(out.transient).toBe(true);
  });

  it('rejects options without a tool in agent mode or without a server', () => {
    expect(() => McpOptions.parse({ url: 'http://127.0.0.1:1/mcp', mode: 'agent' })).toThrowError(/agent mode needs/);
    expect(() => McpOptions.parse({ tool: 'x' })).toThrowError(/give `command` \(stdio\) or `url` \(http\)/);
  });
});
