import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrainKind } from './brain.js';

/** A reply the stand-in sends: JSON, or a server-sent event stream (`events`: the `data:` payloads, in order). */
export type WireReply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: 200; sse: { event?: string; data: string }[]; headers?: Record<string, string> };

/** A scripted failure: a vendor error reply (its own shape) or a connection reset before any byte. */
export type Fault = { status: number; headers?: Record<string, string>; message?: string } | 'reset';

/** How every stand-in behaves; each vendor adds its own wire format. */
export interface StandInOptions {
  brain?: BrainKind;
  /** The key a request must present (null: no authentication, as Ollama). */
  apiKey?: string | null;
  /** Model ids the server serves (others: the vendor's 404); default any. */
  models?: readonly string[];
  /** The model name the reply reports for a requested id (default the requested id). */
  reportModel?: (requested: string) => string;
  /** A fault for the n-th model call (1-based, counted before authentication), or null to answer. */
  fault?: (call: number) => Fault | null;
  /** Echo the full presented key in authentication errors (a hostile or careless vendor). */
  echoKey?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  status: number;
}

export interface StandIn {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** Model calls received (including faulted and rejected ones). */
  readonly calls: number;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

export interface IncomingCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  raw: string;
  call: number;
}

/** Starts a loopback server; `handle` turns each request into a wire reply (or 'reset'). */
export async function startWireServer(handle: (call: IncomingCall) => WireReply | 'reset'): Promise<StandIn> {
  let calls = 0;
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const url = new URL(req.url ?? '/', 'http://stand-in');
      calls++;
      const reply = handle({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        raw,
        call: calls,
      });
      if (reply === 'reset') {
        requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body, status: 0 });
        req.socket.destroy();
        return;
      }
      requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body, status: reply.status });
      if ('sse' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
        for (const e of reply.sse) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`);
        res.end();
        return;
      }
      const text = JSON.stringify(reply.json);
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...reply.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const randomId = (prefix: string, bytes = 12): string => `${prefix}${randomBytes(bytes).toString('hex')}`;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A rough token count (4 characters a token), as the vendors report usage. */
export const tokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** A fault every `n`th call with the given status (and Retry-After seconds for 429). */
export const everyNth =
  (n: number, status = 429, retryAfterSeconds = 1): ((call: number) => Fault | null) =>
  (call) => {
    if (call % n !== 0) return null;
    const headers: Record<string, string> = status === 429 ? { 'retry-after': String(retryAfterSeconds) } : {};
    return { status, headers };
  };
