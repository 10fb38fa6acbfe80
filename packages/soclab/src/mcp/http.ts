import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createLabMcpServer } from './server.js';
import type { McpRunSession } from './session.js';

/** Largest JSON-RPC request body the lab reads; a larger one is refused (413) and ends the run. */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

export interface LabMcpHttpOptions {
  /** Bearer token of this run (default: 32 random bytes, hex). */
  token?: string;
  /** Default 0: a free port. The server binds 127.0.0.1 only. */
  port?: number;
  maxBodyBytes?: number;
}

export interface LabMcpHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** The per-run bearer token; it goes only into `Authorization: Bearer` (never into a log or report). */
  readonly token: string;
  /** Requests refused before MCP (bad token, host, path, method or size), for tests and diagnostics. */
  readonly refused: { status: number; reason: string }[];
  close(): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

function deny(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(body);
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Serve one run's MCP server over Streamable HTTP on 127.0.0.1 with a per-run bearer token. Stateless: each POST
 * gets a fresh protocol server bound to the same run session, so any conforming client (reconnecting or not) sees
 * one run. Deny by default: wrong path, method, host, missing or wrong token, or an oversized body are refused
 * before the MCP layer sees the request.
 *
 * @example
 *   const http = await serveLabMcpHttp(session);
 *   spawn('node', ['agent.mjs'], { env: { SOCLAB_MCP_URL: http.url, SOCLAB_MCP_TOKEN: http.token } });
 */
export async function serveLabMcpHttp(
  session: McpRunSession,
  options: LabMcpHttpOptions = {},
): Promise<LabMcpHttpServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const expected = digest(`Bearer ${token}`);
  const maxBody = options.maxBodyBytes ?? MCP_MAX_BODY_BYTES;
  const validateHost = localhostHostValidation();
  const refused: { status: number; reason: string }[] = [];
  const refuse = (res: ServerResponse, status: number, reason: string, extra?: Record<string, string>) => {
    refused.push({ status, reason });
    deny(res, status, reason, extra);
  };
  const http = createServer(async (req, res) => {
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/mcp') return refuse(res, 404, 'not found');
      // Constant-time comparison of the whole header (hashing first makes the lengths equal).
      if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
        return refuse(res, 401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
      }
      if (!validateHost(req, res)) {
        refused.push({ status: 403, reason: 'host not allowed' });
        return;
      }
      if (req.method !== 'POST') {
        // Stateless server: no standalone SSE stream and no sessions to delete.
        return refuse(res, 405, 'use POST', { allow: 'POST' });
      }
      const raw = await readBody(req, maxBody);
      if (raw === null) {
        session.end('incomplete', `limit_exceeded: request body over ${maxBody} bytes`);
        return refuse(res, 413, `request body over ${maxBody} bytes; the run has ended`);
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return refuse(res, 400, 'request body is not JSON');
      }
      const server = createLabMcpServer(session);
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    refused,
    // Replies in flight (e.g. the answer to submit_finding) are finished first; a client that holds a connection
    // open longer than that is cut off.
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => http.closeAllConnections(), 2000);
        force.unref();
        http.close(() => {
          clearTimeout(force);
          resolve();
        });
        http.closeIdleConnections();
      }),
  };
}
