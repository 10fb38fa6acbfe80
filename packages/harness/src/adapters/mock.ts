import { z } from 'zod';
import { AgentOutput, TokenUsage, ToolCallRecord } from '../core/agent.js';
import { sleep } from '../core/sleep.js';
import { defineAdapter } from './base.js';

const JsonObject = z.record(z.string(), z.unknown());

const MockResponse = z.strictObject({
  /** Matches when the input text equals this. */
  input: z.string().optional(),
  /** Matches when the input text contains this (case-insensitive). */
  contains: z.string().optional(),
  /** Matches when this regular expression finds the input text. */
  pattern: z.string().optional(),
  output: z.union([z.string(), JsonObject]).default(''),
  tool_calls: z.array(ToolCallRecord).default([]),
  error: z.string().optional(),
  transient: z.boolean().optional(),
  retry_after: z.number().min(0).optional(),
  /** Reported latency in seconds. */
  latency: z.number().min(0).optional(),
  /** Real wait before replying, in milliseconds. */
  delay_ms: z.number().int().min(0).optional(),
  usage: TokenUsage.optional(),
  cost: z.number().min(0).optional(),
  metadata: JsonObject.optional(),
});

/**
 * Canned responses chosen by input (exact text, substring or regex; first match wins), with tool calls,
 * usage, cost, reported latency and an optional real delay. Offline and deterministic.
 *
 * ```yaml
 * agent:
 *   adapter: mock
 *   options:
 *     responses:
 *       - contains: refund
 *         output: "Refund issued"
 *         tool_calls: [{ tool_name: lookup_order, args: { id: "A1" } }]
 *     default_output: "Sorry?"
 * ```
 */
export const mockAdapter = defineAdapter({
  name: 'mock',
  description: 'Canned responses by input (exact, substring, regex) with tool calls, usage and latency',
  options: z.strictObject({
    responses: z.array(MockResponse).default([]),
    default_output: z.union([z.string(), JsonObject]).default('Default response'),
    /** Reported latency (seconds) when a response sets none. */
    latency: z.number().min(0).optional(),
    /** Real wait (ms) when a response sets none. */
    delay_ms: z.number().int().min(0).default(0),
  }),
  create(options) {
    const matchers = options.responses.map((r) => {
      const re = r.pattern !== undefined ? new RegExp(r.pattern) : null;
      const needle = r.contains?.toLowerCase();
      return (text: string) =>
        (r.input === undefined || r.input === text) &&
        (needle === undefined || text.toLowerCase().includes(needle)) &&
        (re === null || re.test(text));
    });
    return {
      async run(input, ctx) {
        const text = typeof input === 'string' ? input : JSON.stringify(input);
        const i = matchers.findIndex((m) => m(text));
        const r = i >= 0 ? options.responses[i] : undefined;
        const delay = r?.delay_ms ?? options.delay_ms;
        if (delay > 0) await sleep(delay, ctx.signal);
        const latency = r?.latency ?? options.latency ?? null;
        if (!r) return AgentOutput.parse({ output: options.default_output, latency });
        return AgentOutput.parse({
          output: r.output,
          error: r.error ?? null,
          transient: r.transient,
          retry_after: r.retry_after,
          latency,
          tool_calls: r.tool_calls,
          trace: r.tool_calls.length > 0 ? { tool_calls: r.tool_calls } : null,
          usage: r.usage ?? null,
          cost: r.cost ?? null,
          metadata: { ...(r.metadata ?? {}), mock_response: i },
        });
      },
      describe: () => ({ adapter: 'mock', options: { responses: options.responses.length } }),
    };
  },
});
