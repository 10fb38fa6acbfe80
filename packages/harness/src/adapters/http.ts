import { defineAdapter } from './base.js';
import { HttpOptions } from './http/options.js';
import { withRateLimit } from './rate-limit.js';

/**
 * `http`: an agent behind an HTTP endpoint. Request templated from the case, reply mapped by JSON paths,
 * streaming (SSE / NDJSON) understood, credentials kept out of everything recorded.
 *
 * @example
 *   agent:
 *     adapter: http
 *     options:
 *       url: http://127.0.0.1:8080/ask
 *       body: { question: '{{input}}' }
 *       response: { output: $.answer, tool_calls: '$.steps[*]', usage: $.usage }
 *       auth: { type: bearer, token: '${AGENT_TOKEN}' }
 */
export const httpAdapter = defineAdapter({
  name: 'http',
  description: 'Agent behind an HTTP endpoint (templated request, JSON-path mapping, SSE/NDJSON, auth)',
  options: HttpOptions,
  async create(options, ctx) {
    // undici is loaded only when an HTTP agent is actually built (keeps `harness --help` fast).
    const { HttpAgent } = await import('./http/client.js');
    return withRateLimit(new HttpAgent(options, ctx), options);
  },
});
