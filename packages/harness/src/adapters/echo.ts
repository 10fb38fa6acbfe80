import { z } from 'zod';
import { agentOutput } from '../core/agent.js';
import { sleep } from '../core/sleep.js';
import { defineAdapter } from './base.js';

/**
 * In-process agent that replies with its input (optionally prefixed). Useful for trying a suite's
 * plumbing and for measuring the harness's own overhead.
 *
 * ```yaml
 * agent: { adapter: echo, options: { prefix: "Echo: " } }
 * ```
 */
export const echoAdapter = defineAdapter({
  name: 'echo',
  description: 'In-process agent that replies with its input (optional prefix); for plumbing and overhead',
  options: z.strictObject({
    prefix: z.string().default(''),
    /** Milliseconds to wait before replying (honours cancellation). */
    delay_ms: z.number().int().min(0).default(0),
  }),
  create(options) {
    return {
      async run(input, ctx) {
        if (options.delay_ms > 0) await sleep(options.delay_ms, ctx.signal);
        const text = typeof input === 'string' ? input : JSON.stringify(input);
        return agentOutput({ output: `${options.prefix}${text}` });
      },
      describe: () => ({ adapter: 'echo', options: { prefix: options.prefix } }),
    };
  },
});
