import type { z } from 'zod';
import type { AgentOutput } from '../core/agent.js';
import type { AgentDescriptor } from '../core/experiment.js';
import type { TestCase } from '../core/testcase.js';
import { type PluginBase, type PluginContext, Registry } from '../plugins/registry.js';

/** Handed to the agent with every call. */
export interface RunContext {
  /** Aborted on per-case timeout or Ctrl+C; a reply arriving after it is discarded. */
  signal: AbortSignal;
  testCase: TestCase;
  /** 0-based repeat index. */
  repeat: number;
  /** 1-based attempt number (retries of transient errors). */
  attempt: number;
  /** Template variables: the case's vars merged over the suite's. */
  vars: Readonly<Record<string, unknown>>;
  /** W3C trace context of this agent call when tracing is on; network adapters send it as `traceparent`. */
  traceparent?: string;
}

/**
 * An agent under test. `run` must not throw: failures are returned as an AgentOutput with `error` set,
 * and `transient: true` when a retry could succeed (connection refused/reset, 429, 5xx).
 */
export interface Agent {
  run(input: string | Record<string, unknown>, context: RunContext): Promise<AgentOutput>;
  /** Release connections, child processes, sessions. */
  close?(): Promise<void>;
  /** Describes the agent for the experiment record (no secrets). */
  describe?(): Partial<AgentDescriptor>;
}

export interface AdapterPlugin<Options = unknown> extends PluginBase<Options> {
  create(options: Options, ctx: PluginContext): Agent | Promise<Agent>;
}

export const adapterRegistry = new Registry<AdapterPlugin<never>>('adapter');

/** Register an adapter plugin (typed helper so options infer from the schema). */
export function defineAdapter<O, I = unknown>(plugin: {
  name: string;
  description: string;
  options: z.ZodType<O, I>;
  /** A valid options set for `list-plugins` and the conformance tests (needed when an option is required). */
  example?: NoInfer<I> & Readonly<Record<string, unknown>>;
  create(options: O, ctx: PluginContext): Agent | Promise<Agent>;
}): AdapterPlugin<O> {
  adapterRegistry.register(plugin as unknown as AdapterPlugin<never>);
  return plugin;
}
