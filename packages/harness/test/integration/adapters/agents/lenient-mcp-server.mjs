// An MCP stdio server written against the wire protocol (newline-delimited JSON-RPC), behaving like the
// reference `server-everything`: a call to a tool it does not have comes back as an ordinary result with
// `isError: true` ("Unknown tool: ..."), not as a protocol error. It lists its tools over two pages (cursor).
import { createInterface } from 'node:readline';

const PAGES = [
  [
    {
      name: 'echo',
      description: 'Echo the message',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    },
  ],
  [
    {
      name: 'get_sum',
      description: 'Add a and b',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    },
  ],
];

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

function handle(method, params) {
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'lenient-mcp-server', version: '1.0.0' },
      };
    case 'ping':
      return {};
    case 'tools/list': {
      const page = params?.cursor === 'page-2' ? 1 : 0;
      return { tools: PAGES[page], ...(page === 0 ? { nextCursor: 'page-2' } : {}) };
    }
    case 'tools/call': {
      const { name, arguments: args = {} } = params;
      if (name === 'echo') return { content: [{ type: 'text', text: `Echo: ${args.message}` }] };
      if (name === 'get_sum') return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
    }
    default:
      return undefined;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.id === undefined) return; // notifications
  const result = handle(message.method, message.params);
  if (result === undefined)
    send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  else send({ id: message.id, result });
});
