import { z } from 'zod';
import type { Agent } from '../../src/adapters/base.js';
import { agentOutput, outputText } from '../../src/core/agent.js';
import { defineEvaluator, result } from '../../src/evaluators/base.js';
import { defineMetric, metricResult } from '../../src/metrics/base.js';

/** Test-only plugins, registered under `t_` names so they never clash with the built-ins. */
export const tEquals = defineEvaluator({
  name: 't_equals',
  description: 'test: output equals expected',
  options: z.strictObject({ trim: z.boolean().default(false) }),
  create: (opts) => ({
    name: 't_equals',
    evaluate(tc, out) {
      if (out.error !== null) return result({ evaluator: 't_equals', score: 0, passed: false, explanation: 'error' });
      const a = opts.trim ? outputText(out).trim() : outputText(out);
      const ok = a === String(tc.expected ?? '');
      return result({ evaluator: 't_equals', score: ok ? 1 : 0, passed: ok, explanation: ok ? 'equal' : 'differs' });
    },
  }),
});

export const tThrows = defineEvaluator({
  name: 't_throws',
  description: 'test: throws when the output contains "boom"',
  options: z.strictObject({}),
  create: () => ({
    name: 't_throws',
    evaluate(_tc, out) {
      if (outputText(out).includes('boom')) throw new Error('evaluator exploded');
      return result({ evaluator: 't_throws', score: 1, passed: true });
    },
  }),
});

export const tUnready = defineEvaluator({
  name: 't_unready',
  description: 'test: its setup check fails (like a judge whose provider is not configured)',
  options: z.strictObject({}),
  create: () => ({
    name: 't_unready',
    async prepare() {
      throw new Error("judge provider 'openai' is not configured; set OPENAI_API_KEY");
    },
    evaluate: () => result({ evaluator: 't_unready', score: 1, passed: true }),
  }),
});

export const tPassRate = defineMetric({
  name: 't_pass_rate',
  description: 'test: share of passed results',
  direction: 'higher_is_better',
  options: z.strictObject({}),
  create: () => ({
    name: 't_pass_rate',
    direction: 'higher_is_better',
    calculate(results) {
      const n = results.length;
      const v = n === 0 ? 0 : results.filter((r) => r.status === 'passed').length / n;
      return metricResult({
        name: 't_pass_rate',
        value: v,
        formatted_value: `${(v * 100).toFixed(1)}%`,
        sample_size: n,
      });
    },
  }),
});

export const tBrokenMetric = defineMetric({
  name: 't_broken',
  description: 'test: always throws',
  direction: 'neutral',
  options: z.strictObject({}),
  create: () => ({
    name: 't_broken',
    direction: 'neutral',
    calculate() {
      throw new Error('metric exploded');
    },
  }),
});

/** An in-process agent whose behaviour is driven by the input text. */
export function scriptedAgent(calls: { input: string; attempt: number }[] = []): Agent {
  return {
    async run(input, ctx) {
      const text = typeof input === 'string' ? input : JSON.stringify(input);
      calls.push({ input: text, attempt: ctx.attempt });
      const m = /sleep:(\d+)/.exec(text);
      if (m) {
        await new Promise((r) => setTimeout(r, Number(m[1])));
      }
      if (text.startsWith('throw')) throw new Error('agent exploded');
      if (text.startsWith('flaky') && ctx.attempt < 3) {
        return agentOutput({ error: 'HTTP 503', transient: true, retry_after: 0 });
      }
      if (text.startsWith('always-503')) return agentOutput({ error: 'HTTP 503', transient: true });
      return agentOutput({ output: text.replace(/^sleep:\d+ /, '') });
    },
  };
}
