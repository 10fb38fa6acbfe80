/**
 * Scoring overhead: every deterministic evaluator in the catalogue applied to each of 10,000 recorded
 * agent outputs (text answers, JSON replies, tool trajectories), through createEvaluator exactly as the
 * runner does. Target: all of them together <= 1 s. Prints per-evaluator figures and, as a same-run
 * baseline, the cost of the cheapest evaluator (exact_match) so the ratio is comparable across machines.
 * Also times the metric catalogue (with bootstrap intervals) over the same 10,000 results.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type AgentOutput, agentOutput } from '../packages/harness/src/core/agent.js';
import { itemAt } from '../packages/harness/src/core/item-at.js';
import { TestCaseResult } from '../packages/harness/src/core/result.js';
import { TestCase } from '../packages/harness/src/core/testcase.js';
import { createEvaluator, type Evaluator } from '../packages/harness/src/evaluators/index.js';
import { metricRegistry } from '../packages/harness/src/metrics/index.js';
import { seededRandom } from '../packages/harness/src/stats/rng.js';

const N = 10_000;
const rand = seededRandom(42);
const pick = <T>(xs: readonly T[]): T => itemAt(xs, Math.floor(rand() * xs.length));
const words = [
  'refund',
  'order',
  'shipped',
  'Paris',
  'hotel',
  'booking',
  'sorry',
  'policy',
  'the',
  'a',
  'is',
  'your',
  'we',
  'can',
];
const sentence = (n: number) => Array.from({ length: n }, () => pick(words)).join(' ');

// Recorded outputs: a mix of prose, JSON (some fenced), refusals and tool trajectories with usage and cost.
const outputs: AgentOutput[] = [];
for (let i = 0; i < N; i++) {
  const kind = i % 4;
  const calls = Array.from({ length: 1 + (i % 4) }, (_, k) => ({
    tool_name: pick(['search', 'lookup_order', 'issue_refund', 'get_weather']),
    args: { order_id: `ORD-${10000 + ((i + k) % 90000)}`, amount: (i % 50) + 0.5, city: pick(['Paris', 'Oslo']) },
    status: rand() < 0.1 ? ('error' as const) : ('success' as const),
  }));
  const text =
    kind === 0
      ? `Your refund of $${(i % 500) + 0.99} for order ORD-${10000 + (i % 90000)} is on its way. ANSWER: ${pick(['A', 'B', 'C'])}`
      : kind === 1
        ? `\`\`\`json\n${JSON.stringify({ order_id: `ORD-${10000 + (i % 90000)}`, status: pick(['open', 'shipped']), items: [1, 2, 3] })}\n\`\`\``
        : kind === 2
          ? "I'm sorry, but I can't help with that request."
          : sentence(20 + (i % 30));
  outputs.push(
    agentOutput({
      output: text,
      latency: 0.1 + rand(),
      tool_calls: calls,
      usage: { input_tokens: 100 + (i % 900), output_tokens: 20 + (i % 200) },
      cost: 0.0001 * (i % 17),
    }),
  );
}
const testCase = TestCase.parse({
  id: 'bench',
  name: 'bench',
  input: 'Where is my refund for order ORD-12345?',
  expected: 'Your refund of $10.99 for order ORD-12345 is on its way.',
});

const schema = {
  type: 'object',
  required: ['order_id', 'status'],
  properties: { order_id: { type: 'string', pattern: '^ORD-\\d{5}$' }, status: { enum: ['open', 'shipped'] } },
};
const configs: Record<string, Record<string, unknown>> = {
  exact_match: { ignore_case: true },
  contains: { substring: ['refund', 'order'], mode: 'any', case_sensitive: false },
  regex_match: { pattern: 'ORD-\\d{5}' },
  starts_with: { value: ['Your', 'I'] },
  json_match: { value: { status: 'open' } },
  json_schema: { schema },
  is_json: {},
  fuzzy_match: {},
  numeric_match: { value: 10.99, abs_tol: 0.01, extract: 'first' },
  choice: { value: 'B' },
  f1: {},
  rouge_l: {},
  bleu: {},
  word_count: { min: 5, max: 60 },
  length: { max: 400 },
  latency_budget: { max: 1 },
  cost_budget: { max: 0.001 },
  token_budget: { max: 900 },
  refusal: { not: true },
  tool_usage: {
    expected_tools: ['lookup_order', { name: 'issue_refund', args: { order_id: '^ORD-\\d{5}$' }, match: 'regex' }],
    forbidden_tools: ['delete_all'],
    max_calls: 5,
  },
  tool_sequence: { sequence: ['search', 'lookup_order'] },
  tool_args_valid: {
    schemas: {
      issue_refund: {
        type: 'object',
        required: ['order_id', 'amount'],
        properties: { amount: { type: 'number', maximum: 40 } },
      },
    },
  },
  step_count: { max: 3 },
  tool_error_rate: { max: 0.2 },
  mcp_tool_usage: { required_tool: 'lookup_order' },
};
const ctx = { baseDir: process.cwd(), env: {} };
const evaluators: [string, Evaluator][] = Object.entries(configs).map(([name, options]) => [
  name,
  createEvaluator({ name, options, weight: 1 }, ctx),
]);

async function timeOne(ev: Evaluator): Promise<number> {
  const t0 = performance.now();
  for (const out of outputs) await ev.evaluate(testCase, out);
  return performance.now() - t0;
}

// Warm-up (JIT, ajv compilation), then measure.
for (const [, ev] of evaluators) for (let i = 0; i < 200; i++) await ev.evaluate(testCase, itemAt(outputs, i));

const perEvaluator: [string, number][] = [];
let total = 0;
let passes = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (const out of outputs) {
  for (const [, ev] of evaluators) {
    const r = await ev.evaluate(testCase, out);
    if (r.passed) passes++;
  }
}
total = performance.now() - t0;
const cpu = process.cpuUsage(c0);
const cpuMs = (cpu.user + cpu.system) / 1000;
for (const [name, ev] of evaluators) perEvaluator.push([name, await timeOne(ev)]);
const sumSeparate = perEvaluator.reduce((s, [, ms]) => s + ms, 0);
const baseline = perEvaluator.find(([n]) => n === 'exact_match')?.[1] ?? 1;

perEvaluator.sort((a, b) => b[1] - a[1]);
console.log(
  `${evaluators.length} deterministic evaluators x ${N.toLocaleString('en-US')} recorded outputs = ${(evaluators.length * N).toLocaleString('en-US')} evaluations`,
);
console.log(
  `total ${total.toFixed(0)} ms (${((total * 1000) / (evaluators.length * N)).toFixed(2)} µs/evaluation, ${passes} passed)  target <= 1000 ms  ${total <= 1000 ? 'OK' : 'MISSED'}`,
);
console.log(
  `cpu time ${cpuMs.toFixed(0)} ms (load average ${itemAt(loadavg(), 0).toFixed(1)} on ${availableParallelism()} cores: wall time is inflated when the machine is busy)`,
);
console.log(`same work one evaluator at a time: ${sumSeparate.toFixed(0)} ms`);
console.log(
  `baseline: exact_match alone ${baseline.toFixed(1)} ms for ${N.toLocaleString('en-US')} outputs; all evaluators = ${(total / baseline).toFixed(1)}x baseline`,
);
console.log('slowest evaluators (ms for 10,000 outputs, ratio to exact_match):');
for (const [name, ms] of perEvaluator.slice(0, 8))
  console.log(`  ${name.padEnd(16)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / baseline).toFixed(1)}x`);

// Metrics over the same outputs as case results, 3 repeats per case (clustered bootstrap).
const results = outputs.map((o, i) =>
  TestCaseResult.parse({
    test_id: `c${Math.floor(i / 3)}`,
    repeat: i % 3,
    status: i % 5 === 0 ? 'failed' : 'passed',
    score: i % 5 === 0 ? 0 : 1,
    output: o,
    tags: [pick(['a', 'b', 'c'])],
  }),
);
const m0 = performance.now();
for (const plugin of metricRegistry.list()) {
  const opts = plugin.options.parse(plugin.name.startsWith('pass_') ? { k: 2 } : {}) as never;
  plugin.create(opts, ctx).calculate(results);
}
const metricsMs = performance.now() - m0;
console.log(
  `all ${metricRegistry.names().length} metrics (with intervals) over ${N.toLocaleString('en-US')} results: ${metricsMs.toFixed(0)} ms`,
);
