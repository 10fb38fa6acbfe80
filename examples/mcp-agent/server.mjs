#!/usr/bin/env node
// A small MCP server used as an agent under test. Run over stdio (default) or Streamable HTTP:
//   node examples/mcp-agent/server.mjs            # stdio: stdout is the protocol, logs go to stderr
//   node examples/mcp-agent/server.mjs --http 0   # HTTP on 127.0.0.1 (0 = any free port; the URL is printed)
// Tools: run_agent (answers a question, reporting the tools it used), add, lookup_user, fail, slow.
import { createServer } from 'node:http';
import { localhostHostValidation, NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const USERS = { u1: { name: 'Ada Lovelace', role: 'admin' }, u2: { name: 'Alan Turing', role: 'analyst' } };

function buildServer() {
  const server = new McpServer({ name: 'example-mcp-agent', version: '1.0.0' });

  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );

  server.registerTool(
    'lookup_user',
    { description: 'Find a user by id', inputSchema: z.object({ id: z.string() }) },
    async ({ id }) => {
      const user = USERS[id];
      if (!user) return { isError: true, content: [{ type: 'text', text: `no user ${id}` }] };
      return { content: [{ type: 'text', text: JSON.stringify(user) }] };
    },
  );

  server.registerTool(
    'run_agent',
    {
      description: 'Answer a question; reports the tool calls it made',
      inputSchema: z.object({ input: z.string(), user: z.string().optional() }),
    },
    async ({ input, user }) => {
      const steps = [];
      let answer;
      const sum = /(\d+)\s*\+\s*(\d+)/.exec(input);
      if (sum) {
        const result = Number(sum[1]) + Number(sum[2]);
        steps.push({ tool_name: 'add', args: { a: Number(sum[1]), b: Number(sum[2]) }, result });
        answer = `The answer is ${result}.`;
      } else if (/who is (u\d+)/i.test(input)) {
        const id = /who is (u\d+)/i.exec(input)[1];
        const found = USERS[id];
        steps.push({
          tool_name: 'lookup_user',
          args: { id },
          result: found ?? null,
          status: found ? 'success' : 'error',
        });
        answer = found ? `${id} is ${found.name} (${found.role}).` : `I do not know ${id}.`;
      } else {
        answer = `You said: ${input}${user ? ` (as ${user})` : ''}`;
      }
      return {
        content: [{ type: 'text', text: answer }],
        structuredContent: { output: answer, tool_calls: steps },
      };
    },
  );

  server.registerTool('fail', { description: 'Always fails', inputSchema: z.object({}) }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'this tool always fails' }],
  }));

  server.registerTool(
    'slow',
    { description: 'Sleeps then answers', inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );
  return server;
}

const httpIndex = process.argv.indexOf('--http');
if (httpIndex >= 0) {
  const port = Number(process.argv[httpIndex + 1] ?? 0);
  const validateHost = localhostHostValidation();
  const http = createServer(async (req, res) => {
    if (!validateHost(req, res)) return;
    // Stateless: a new server and transport per request.
    const server = buildServer();
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`);
  });
} else {
  await buildServer().connect(new StdioServerTransport());
  process.stderr.write('example-mcp-agent ready on stdio\n');
}
