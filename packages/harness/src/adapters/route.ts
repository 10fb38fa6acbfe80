import { z } from 'zod';
import { agentOutput } from '../core/agent.js';
import { parseOptions } from '../evaluators/base.js';
import { type Agent, adapterRegistry, defineAdapter } from './base.js';

const AgentSpec = z.strictObject({
  adapter: z.string().min(1),
  options: z.record(z.string(), z.unknown()).default({}),
});

/**
 * Several agents in one suite, each case sent to the one its `vars` name (a promptfoo config's providers, one
 * case per test x provider). Every agent is built, and its options validated, before any case runs; a case
 * naming no known agent is an errored output, never sent to a default.
 *
 * ```yaml
 * agent:
 *   adapter: route
 *   options:
 *     by: provider
 *     agents:
 *       echo: { adapter: echo }
 *       service: { adapter: http, options: { url: "http://127.0.0.1:8080/chat" } }
 * ```
 */
export const routeAdapter = defineAdapter({
  name: 'route',
  description: 'Sends each case to one of several agents, chosen by a case variable (default vars.provider)',
  options: z.strictObject({
    /** The case variable naming the agent. */
    by: z.string().min(1).default('provider'),
    agents: z.record(z.string().min(1), AgentSpec).refine((a) => Object.keys(a).length > 0, 'at least one agent'),
  }),
  async create(options, ctx) {
    const agents = new Map<string, Agent>();
    try {
      for (const [label, spec] of Object.entries(options.agents)) {
        if (spec.adapter === 'route') throw new Error(`agent '${label}': a route cannot contain another route`);
        const plugin = adapterRegistry.get(spec.adapter);
        agents.set(label, await plugin.create(parseOptions(plugin, spec.options) as never, ctx));
      }
    } catch (err) {
      await Promise.allSettled([...agents.values()].map((a) => a.close?.()));
      throw err;
    }
    const known = [...agents.keys()].join(', ');
    return {
      async run(input, runCtx) {
        const label = runCtx.vars[options.by];
        const agent = typeof label === 'string' ? agents.get(label) : undefined;
        if (!agent) {
          return agentOutput({ error: `no agent for ${options.by} '${String(label)}' (known: ${known})` });
        }
        return agent.run(input, runCtx);
      },
      async close() {
        await Promise.allSettled([...agents.values()].map((a) => a.close?.()));
      },
      describe: () => ({
        adapter: 'route',
        options: { by: options.by, agents: Object.fromEntries([...agents].map(([k, a]) => [k, a.describe?.() ?? {}])) },
      }),
    };
  },
});
