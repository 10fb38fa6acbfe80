#!/usr/bin/env node
// A small HTTP agent to evaluate with the harness `http` adapter.
//   node examples/http-agent/server.mjs [--port 8787] [--latency 0]
// POST /ask          {"question": "..."}  ->  {"answer", "steps": [{tool, input, output}], "usage"}
// POST /ask/stream   same request, answered as Server-Sent Events (OpenAI-style deltas, then [DONE])
// GET  /health       -> {"ok": true}
// When AGENT_TOKEN is set, requests must carry "Authorization: Bearer $AGENT_TOKEN".
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const port = Number(flag('--port', process.env.PORT ?? 8787));
const latency = Number(flag('--latency', 0));
const token = process.env.AGENT_TOKEN;

const CAPITALS = { france: 'Paris', japan: 'Tokyo', italy: 'Rome', kenya: 'Nairobi' };

/** The "agent": a few deterministic skills, each reported as a tool call. */
function answer(question) {
  const q = String(question ?? '');
  const math = /(-?\d+(?:\.\d+)?)\s*([+\-*/])\s*(-?\d+(?:\.\d+)?)/.exec(q);
  if (math) {
    const [a, op, b] = [Number(math[1]), math[2], Number(math[3])];
    const result = op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
    return { answer: `The result is ${result}.`, steps: [{ tool: 'calculator', input: { a, op, b }, output: result }] };
  }
  const country = /capital of (\w+)/i.exec(q)?.[1]?.toLowerCase();
  if (country) {
    const city = CAPITALS[country];
    return {
      answer: city ? `The capital of ${country[0].toUpperCase()}${country.slice(1)} is ${city}.` : "I don't know.",
      steps: [{ tool: 'atlas_lookup', input: { country }, output: city ?? null }],
    };
  }
  return { answer: `You said: ${q}`, steps: [] };
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/health') return send(res, 200, { ok: true });
    if (token && req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'unauthorized' });
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return send(res, 400, { error: 'body must be JSON' });
    }
    const reply = answer(body.question ?? body.input);
    const words = reply.answer.split(' ').length;
    const usage = { prompt_tokens: String(body.question ?? '').split(' ').length, completion_tokens: words };
    setTimeout(() => {
      if (req.url === '/ask') return send(res, 200, { ...reply, usage });
      if (req.url === '/ask/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const piece of reply.answer.split(/(?<= )/)) {
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
        }
        res.write(`data: ${JSON.stringify({ choices: [{ delta: {} }], usage, steps: reply.steps })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      send(res, 404, { error: 'not found' });
    }, latency);
  });
});

server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`http-agent listening on http://127.0.0.1:${server.address().port}\n`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
