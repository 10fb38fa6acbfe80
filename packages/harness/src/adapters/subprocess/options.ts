import { z } from 'zod';
import { checkTemplate } from '../http/template.js';
import { LimitOptionsShape } from '../rate-limit.js';
import { MAX_TIMER_SECONDS, timeoutSeconds } from '../timeouts.js';

/** Options of the `subprocess` adapter (see docs/adapters.md). Durations are in seconds. */
export const SubprocessOptions = z
  .strictObject({
    /** Program and arguments: a command line (quotes respected, no shell) or an argv array; templated. */
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
    /** `per_case`: one process per case. `jsonl`: one long-lived process speaking JSON lines. */
    mode: z.enum(['per_case', 'jsonl']).default('per_case'),
    /** per_case: what goes to stdin: the input (text, or JSON for object input), the JSON request, or nothing. */
    stdin: z.enum(['input', 'request', 'none']).default('input'),
    /** per_case: how stdout is read. `auto`: JSON when it parses, else text. */
    output: z.enum(['auto', 'json', 'text']).default('auto'),
    /** Working directory (templated, relative to the suite folder; default the suite folder). */
    cwd: z.string().min(1).optional(),
    /** A fresh temporary directory per case, passed as cwd (per_case) or `context.workspace` (jsonl). */
    temp_workspace: z.boolean().default(false),
    keep_workspace: z.boolean().default(false),
    /** Extra environment variables (templated). */
    env: z.record(z.string(), z.string()).default({}),
    /** Parent environment variables the child may see (by name). */
    env_allow: z.array(z.string().min(1)).optional(),
    /** per_case: kill the process group after this long; jsonl: per-request limit. */
    timeout: timeoutSeconds().optional(),
    /** Time between SIGTERM and SIGKILL. */
    kill_grace: z.number().min(0).max(MAX_TIMER_SECONDS).default(2),
    /** jsonl: restart the process when a request times out or is cancelled (it may be stuck). */
    restart_on_timeout: z.boolean().default(true),
    /** Largest stdout accepted, in bytes (default 10 MB). */
    max_output_bytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    ...LimitOptionsShape,
  })
  .superRefine((o, ctx) => {
    if (Array.isArray(o.command)) {
      for (const [i, w] of o.command.entries()) checkTemplate(ctx, w, ['command', i]);
    } else checkTemplate(ctx, o.command, ['command']);
    checkTemplate(ctx, o.cwd, ['cwd']);
    for (const [k, v] of Object.entries(o.env)) checkTemplate(ctx, v, ['env', k]);
  });
export type SubprocessOptions = z.infer<typeof SubprocessOptions>;
export type SubprocessOptionsInput = z.input<typeof SubprocessOptions>;
