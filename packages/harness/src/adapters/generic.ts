import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { agentOutput } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import { importModule } from '../plugins/import.js';
import { type Agent, defineAdapter, type RunContext } from './base.js';
import { toAgentOutput } from './module.js';

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cts', '.cjs'];

/** `package.module:callable` as the seed format writes it (Python-style dotted module, then the export). */
const CALLABLE_SPEC = /^([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*):([A-Za-z_$][\w$]*)$/;

/** The suite's project root: the nearest folder at or above `dir` holding a package.json or a .git. */
export function projectRoot(dir: string): string {
  let d = resolve(dir);
  for (;;) {
    if (existsSync(join(d, 'package.json')) || existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return resolve(dir);
    d = up;
  }
}

/**
 * Resolve `examples.basic.mock_agent:support_agent` to a file and an export: the dotted module maps to a path
 * under the suite's project root (`examples/basic/mock_agent` + .ts/.mts/.js/.mjs/.cts/.cjs, or that folder's
 * index), then under the current directory. Errors are the seed's four, each naming what to fix.
 */
export function resolveCallableSpec(spec: string, baseDir: string): { file: string; exportName: string } {
  const [, dotted, exportName] = CALLABLE_SPEC.exec(spec) ?? [];
  if (dotted === undefined || exportName === undefined) {
    throw new Error(
      `Invalid import path '${spec}'. Expected format 'module.submodule:function_or_class' (e.g. examples.basic.mock_agent:support_agent)`,
    );
  }
  const rel = dotted.split('.').join('/');
  const roots = [...new Set([projectRoot(baseDir), process.cwd()])];
  const tried: string[] = [];
  for (const root of roots) {
    for (const base of [join(root, rel), join(root, rel, 'index')]) {
      for (const ext of EXTENSIONS) {
        const file = `${base}${ext}`;
        tried.push(file);
        if (existsSync(file) && statSync(file).isFile()) return { file, exportName };
      }
    }
  }
  throw new Error(
    `Could not import module '${dotted}': no file ${rel}{${EXTENSIONS.join(',')}} under ${roots.join(' or ')}`,
  );
}

type Callable = (input: string | Record<string, unknown>, ctx?: RunContext) => unknown;

/**
 * The seed format's `generic` adapter: calls a function or class named as `package.module:callable`, resolved
 * from the suite's project root. A class is constructed with `config` and its `run(input)` called; a function
 * is called with the input. Whatever it returns (an AgentOutput, a string, an object) becomes the output;
 * a throw becomes an errored output.
 *
 * ```yaml
 * agent:
 *   adapter: generic
 *   module: "examples.basic.mock_agent:support_agent"
 *   config: { tone: formal }       # constructor options for a class target
 * ```
 */
export const genericAdapter = defineAdapter({
  name: 'generic',
  description: "Seed-format agent: a function or class named 'package.module:callable', from the suite's project root",
  options: z.strictObject({
    /** `package.module:callable`, resolved under the suite's project root. */
    module: z.string().min(1),
    /** The seed's `agent.config`: constructor options for a class target. */
    config: z.record(z.string(), z.unknown()).default({}),
  }),
  async create(options, ctx) {
    const { file, exportName } = resolveCallableSpec(options.module, ctx.baseDir);
    const [dotted] = options.module.split(':');
    let mod: Record<string, unknown>;
    try {
      mod = await importModule(file, ctx.baseDir);
    } catch (err) {
      throw new Error(`Could not import module '${dotted}': ${errorMessage(err)}`);
    }
    const target = mod[exportName];
    if (target === undefined) {
      const names = Object.keys(mod).join(', ') || 'none';
      throw new Error(`Module '${dotted}' has no attribute '${exportName}' (exports: ${names})`);
    }
    if (typeof target !== 'function') throw new Error(`Target '${options.module}' is not callable.`);
    let call: Callable;
    let close: (() => unknown) | undefined;
    if (typeof target.prototype?.run === 'function') {
      const Cls = target as new (config: Record<string, unknown>) => { run: Callable; close?: () => unknown };
      const instance = new Cls(options.config);
      call = (input, runCtx) => instance.run(input, runCtx);
      close = instance.close?.bind(instance);
    } else {
      call = target as Callable;
    }
    const agent: Agent = {
      async run(input, runCtx) {
        try {
          return toAgentOutput(await call(input, runCtx));
        } catch (err) {
          return agentOutput({ error: `Generic adapter execution failed: ${errorMessage(err)}` });
        }
      },
      async close() {
        await close?.();
      },
      describe: () => ({ adapter: 'generic', options: { module: options.module } }),
    };
    return agent;
  },
});
