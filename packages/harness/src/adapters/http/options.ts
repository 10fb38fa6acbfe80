import { z } from 'zod';
import { errorMessage } from '../../core/errors.js';
import { LimitOptionsShape } from '../rate-limit.js';
import { timeoutSeconds } from '../timeouts.js';
import { AuthOptions } from './auth.js';
import { compileJsonPath } from './json-path.js';
import { checkMapping, ResponseMapping } from './mapping.js';
import { checkTemplate } from './template.js';

const StatusSpec = z.union([
  z.number().int().min(100).max(599),
  z.string().regex(/^[1-5]xx$/, "expected a status code or a class like '2xx'"),
]);

/** Options of the `http` adapter (see docs/adapters.md). Durations are in seconds. */
export const HttpOptions = z
  .strictObject({
    /** Templated URL, e.g. `http://127.0.0.1:8080/agent/{{vars.route}}`. */
    url: z.string().min(1),
    /** Default POST (with a JSON body `{input}` unless `body` is given). */
    method: z
      .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'get', 'post', 'put', 'patch', 'delete', 'head'])
      .optional(),
    headers: z.record(z.string(), z.string()).default({}),
    query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    /** Templated body: an object/array (sent as JSON, `"{{input}}"` keeps the input's type) or a string. */
    body: z.unknown().optional(),
    body_format: z.enum(['json', 'text', 'form']).optional(),
    auth: AuthOptions.optional(),
    /** JSON paths mapping the reply onto the output; without it a JSON reply is the output. */
    response: ResponseMapping.optional(),
    /** Streaming: 'auto' detects SSE / NDJSON by content-type; true forces SSE; false reads the body whole. */
    stream: z.union([z.enum(['auto', 'sse', 'ndjson']), z.boolean()]).default('auto'),
    /** JSON path to each streamed event's text piece (default: common formats are recognised). */
    stream_delta: z.string().min(1).optional(),
    /** Event data that ends the stream. */
    stream_done: z.string().default('[DONE]'),
    /** Statuses treated as replies; anything else is an adapter error. */
    accept_status: z.array(StatusSpec).min(1).default(['2xx']),
    /** Whole-request timeout (the runner's per-case timeout applies as well). */
    timeout: timeoutSeconds().optional(),
    connect_timeout: timeoutSeconds().default(10),
    /** Largest reply accepted, in bytes (default 10 MB). */
    max_response_bytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    /** Keep-alive connections per origin (default: as many as needed). */
    connections: z.number().int().positive().optional(),
    ...LimitOptionsShape,
  })
  .superRefine((o, ctx) => {
    // Template and JSON-path syntax is checked here so `harness validate` reports it with its position.
    checkTemplate(ctx, o.url, ['url']);
    for (const [k, v] of Object.entries(o.headers)) checkTemplate(ctx, v, ['headers', k]);
    for (const [k, v] of Object.entries(o.query)) checkTemplate(ctx, String(v), ['query', k]);
    checkTemplate(ctx, o.body, ['body']);
    checkMapping(ctx, o.response, ['response']);
    if (o.stream_delta) {
      try {
        compileJsonPath(o.stream_delta);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          path: ['stream_delta'],
          message: errorMessage(err),
        });
      }
    }
  });
export type HttpOptions = z.infer<typeof HttpOptions>;
export type HttpOptionsInput = z.input<typeof HttpOptions>;
