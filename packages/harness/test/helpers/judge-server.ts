import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the loopback judge does with one request. */
export type JudgeBehaviour =
  | { verdict: Record<string, unknown>; usage?: { input: number; output: number }; delayMs?: number }
  | { text: string; usage?: { input: number; output: number } }
  | { truncated: string }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { hang: true };

/** One request as the server saw it. */
export interface SeenRequest {
  format: 'openai' | 'anthropic';
  model: string;
  body: Record<string, unknown>;
  /** System prompt and every message, joined (for routing behaviours by content). */
  text: string;
  at: number;
}

/**
 * A judge model on 127.0.0.1 speaking the OpenAI Chat Completions (`POST /v1/chat/completions`) and Anthropic
 * Messages (`POST /v1/messages`) formats. `behave` decides each reply; misbehaviours (prose, refusals, 429 with
 * Retry-After, 500, truncation, hanging) are ordinary replies here, so the real vendor adapters meet them.
 */
export async function startJudgeServer(behave: (req: SeenRequest, index: number) => JudgeBehaviour): Promise<{
  url: string;
  requests: SeenRequest[];
  /** Most requests in flight at once. */
  maxInFlight: () => number;
  close: () => Promise<void>;
}> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    const format = req.url?.endsWith('/messages') ? 'anthropic' : 'openai';
    const text = JSON.stringify([body.system ?? '', body.messages ?? []]);
    const seen: SeenRequest = { format, model: String(body.model), body, text, at: Date.now() };
    requests.push(seen);
    inFlight++;
    peak = Math.max(peak, inFlight);
    const done = () => {
      inFlight--;
    };
    const b = behave(seen, requests.length - 1);
    if ('hang' in b) {
      hanging.push(res);
      res.on('close', done);
      return;
    }
    if ('verdict' in b && b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    done();
    if ('status' in b) {
      res.writeHead(b.status, { 'content-type': 'application/json', ...(b.headers ?? {}) });
      res.end(JSON.stringify(b.body ?? { error: { message: `status ${b.status}`, type: 'server_error' } }));
      return;
    }
    const usage = 'usage' in b && b.usage ? b.usage : { input: 200, output: 40 };
    const truncated = 'truncated' in b;
    const content = 'verdict' in b ? JSON.stringify(b.verdict) : 'text' in b ? b.text : b.truncated;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (format === 'openai') {
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: seen.model,
          choices: [
            { index: 0, message: { role: 'assistant', content }, finish_reason: truncated ? 'length' : 'stop' },
          ],
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }),
      );
      return;
    }
    // Anthropic: a verdict tool offered in the request is answered with a tool_use block.
    const tools = (body.tools as { name: string }[] | undefined) ?? [];
    const [tool] = tools;
    const useTool = 'verdict' in b && tool !== undefined;
    res.end(
      JSON.stringify({
        id: `msg_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: seen.model,
        content: useTool
          ? [{ type: 'tool_use', id: `toolu_${requests.length}`, name: tool.name, input: b.verdict }]
          : [{ type: 'text', text: content }],
        stop_reason: truncated ? 'max_tokens' : useTool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: () => peak,
    close: async () => {
      for (const h of hanging) h.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
