import { z } from 'zod';
import { AgentOutput, agentOutput } from '../core/agent.js';
import { importModule } from '../plugins/import.js';
import { type Agent, defineAdapter, type RunContext } from './base.js';
import { replyToOutput } from './normalize.js';

type RunFn = (input: string | Record<string, unknown>, ctx: RunContext) => unknown;

/** Split `./agent.ts#run` into the module and the export name. */
export function parseModuleSpec(spec: string): { path: string; exportName: string | null } {
  const hash = spec.lastIndexOf('#');
  if (hash <= 0) return { path: spec, exportName: null };
  return { path: spec.slice(0, hash), exportName: spec.slice(hash + 1) || null };
}

/** What a module agent may return: an AgentOutput (or part of one), a string, or any JSON object. */
export function toAgentOutput(value: unknown): AgentOutput {
  if (typeof value === 'string') return agentOutput({ output: value });
  if (value === null || value === undefined) return agentOutput({ output: '' });
  if (typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    if ('output' in obj || 'error' in obj) {
      const parsed = AgentOutput.safeParse(obj);
      return parsed.success ? parsed.data : replyToOutput(obj, null);
    }
    return agentOutput({ output: obj });
  }
  return agentOutput({ output: JSON.stringify(value) });
}

/**
 * Runs an agent exported by a local JS or TypeScript module (TS is loaded through tsx): a function
 * `run(input, ctx)`, a class with a `run` method (constructed with `options`), or an object with `run`.
 *
 * ```yaml
 * agent: { adapter: module, options: { module: ./agent.ts#run } }
 * ```
 */
export const moduleAdapter = defineAdapter({
  name: 'module',
  description: 'In-process agent exported by a local JS/TS module (function, class or object with run())',
  options: z.strictObject({
    /** `path[#export]`, relative to the suite; the export defaults to `run`, then `default`. */
    module: z.string().min(1),
    /** Passed to a class constructor. */
    options: z.record(z.string(), z.unknown()).default({}),
  }),
  async create(options, ctx) {
    const { path, exportName } = parseModuleSpec(options.module);
    const mod = await importModule(path, ctx.baseDir);
    const name = exportName ?? ('run' in mod ? 'run' : 'default');
    const exported = mod[name];
    if (exported === undefined) {
      const names = Object.keys(mod).join(', ') || 'none';
      throw new Error(`module '${path}' has no export '${name}' (exports: ${names})`);
    }
    let target: { run: RunFn; close?: () => unknown };
    if (typeof exported === 'function' && typeof exported.prototype?.run === 'function') {
      const Cls = exported as new (opts: Record<string, unknown>) => { run: RunFn; close?: () => unknown };
      target = new Cls(options.options);
    } else if (typeof exported === 'function') {
      const fn = exported as RunFn;
      target = { run: fn };
    } else if (exported && typeof (exported as { run?: unknown }).run === 'function') {
      target = exported as { run: RunFn };
    } else {
      throw new Error(`export '${name}' of '${path}' is not a function, a class with run(), or an object with run()`);
    }
    const agent: Agent = {
      async run(input, runCtx) {
        return toAgentOutput(await target.run(input, runCtx));
      },
      async close() {
        await target.close?.();
      },
      describe: () => ({ adapter: 'module', options: { module: options.module } }),
    };
    return agent;
  },
});
