import { z } from 'zod';
import { AuthOptions } from '../http/auth.js';
import { checkMapping, ResponseMapping } from '../http/mapping.js';
import { checkTemplate } from '../http/template.js';
import { LimitOptionsShape } from '../rate-limit.js';
import { timeoutSeconds } from '../timeouts.js';

/** Options of the `mcp` adapter (see docs/adapters.md). Durations are in seconds. */
export const McpOptions = z
  .strictObject({
    /** Inferred from `command` (stdio) or `url` (Streamable HTTP) when omitted. */
    transport: z.enum(['stdio', 'http']).optional(),
    /** stdio: the server's command line (quotes respected, no shell) or argv array. */
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    /** stdio: working directory, relative to the suite folder. */
    cwd: z.string().min(1).optional(),
    /** stdio: extra environment variables for the server. */
    env: z.record(z.string(), z.string()).default({}),
    /** stdio: parent environment variables the server may see (by name). */
    env_allow: z.array(z.string().min(1)).optional(),
    /** http: the Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp. */
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    auth: AuthOptions.optional(),
    /** `agent`: call `tool` with the case input as the agent. `tools`: the input names the tool calls to make. */
    mode: z.enum(['agent', 'tools']).optional(),
    /** agent mode: the tool that runs the agent. */
    tool: z.string().min(1).optional(),
    /** agent mode: arguments template (default: an object input as is, a string input as `{input}`). */
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** agent mode: JSON paths into the tool's structured result (or its text parsed as JSON). */
    response: ResponseMapping.optional(),
    /** tools mode: a tool reporting isError is recorded (default) or makes the case an adapter error. */
    tool_errors: z.enum(['record', 'fail']).default('record'),
    /** Per tool call. */
    call_timeout: timeoutSeconds().default(60),
    connect_timeout: timeoutSeconds().default(30),
    ...LimitOptionsShape,
  })
  .superRefine((o, ctx) => {
    checkTemplate(ctx, o.arguments, ['arguments']);
    checkMapping(ctx, o.response, ['response']);
    const transport = o.transport ?? (o.url ? 'http' : o.command ? 'stdio' : undefined);
    if (!transport)
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'give `command` (stdio) or `url` (http)' });
    if (transport === 'stdio' && !o.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'required for the stdio transport' });
    }
    if (transport === 'http' && !o.url)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'required for the http transport' });
    if ((o.mode ?? (o.tool ? 'agent' : 'tools')) === 'agent' && !o.tool) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool'],
        message: 'agent mode needs the name of the tool that runs the agent',
      });
    }
  });
export type McpOptions = z.infer<typeof McpOptions>;
export type McpOptionsInput = z.input<typeof McpOptions>;
