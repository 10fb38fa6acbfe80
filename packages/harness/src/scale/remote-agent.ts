import type { Agent } from '../adapters/base.js';
import { AgentOutput } from '../core/agent.js';

/**
 * Stands in for the agent in processes that never call it (a queue coordinator, a merge): it names the
 * adapter for the run record and refuses to run, so a wiring mistake shows up as a recorded error.
 */
export function remoteAgent(adapter: string, where = 'workers'): Agent {
  return {
    async run() {
      return AgentOutput.parse({ error: `this agent runs on ${where}, not in this process` });
    },
    describe: () => ({ adapter }),
  };
}
