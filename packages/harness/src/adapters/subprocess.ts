import { defineAdapter } from './base.js';
import { withRateLimit } from './rate-limit.js';
import { SubprocessOptions } from './subprocess/options.js';

/**
 * `subprocess`: a command-line agent. Either one process per case (input on stdin or in templated arguments,
 * output read from stdout as JSON or text) or one long-lived process speaking JSON lines
 * (`{id, input, context}` in, `{id, output, tool_calls?, usage?, error?}` out). Timeouts kill the whole
 * process group; exit code and stderr go into the error.
 *
 * @example
 *   agent:
 *     adapter: subprocess
 *     options: { command: node agent.mjs, mode: jsonl, timeout: 30 }
 */
export const subprocessAdapter = defineAdapter({
  name: 'subprocess',
  description: 'Command-line agent: one process per case or a persistent JSON-lines process',
  options: SubprocessOptions,
  async create(options, ctx) {
    const { SubprocessAgent } = await import('./subprocess/agent.js');
    return withRateLimit(new SubprocessAgent(options, ctx), options);
  },
});
