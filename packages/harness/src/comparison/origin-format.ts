import { Experiment, type ExperimentInput, MetricDirection } from '../core/experiment.js';
import type { TestCaseResultInput } from '../core/result.js';
import { firstZodIssue } from '../core/zod-issues.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * True for a result file written by the seed's origin project (Agentic Evolution Harness 0.1, Python): an
 * object with `id`, `name`, `timestamp` and `results[].test_case`, and none of this format's `suite`/`agent`.
 */
export function isOriginExperiment(raw: unknown): raw is Json {
  if (!isObject(raw) || 'suite' in raw || 'schema_version' in raw) return false;
  if (typeof raw.id !== 'string' || typeof raw.name !== 'string' || !Array.isArray(raw.results)) return false;
  return (
    'timestamp' in raw ||
    'agent_info' in raw ||
    'benchmark_info' in raw ||
    raw.results.some((r) => isObject(r) && isObject(r.test_case))
  );
}

/**
 * Convert an origin result file to an Experiment: `test_case.id` becomes the case id, `passed` the status
 * (`error` when the agent reported an error), `token_usage` the usage, `average_score` the case score, and the
 * metric records are kept as written (a direction outside the three known ones reads as neutral). Throws
 * with the field path when a required field is missing or has the wrong type.
 */
export function fromOriginExperiment(raw: Json, source: string): Experiment {
  const timestamp = str(raw.timestamp) ?? new Date(0).toISOString();
  const agentInfo = isObject(raw.agent_info) ? raw.agent_info : {};
  const bench = isObject(raw.benchmark_info) ? raw.benchmark_info : {};
  const results = (raw.results as unknown[]).map((r, i) => originResult(r, i, timestamp));
  const metrics: Record<string, unknown> = {};
  if (isObject(raw.metrics)) {
    for (const [name, m] of Object.entries(raw.metrics)) {
      if (!isObject(m)) throw new Error(`${source}: metrics.${name}: expected an object`);
      const direction = MetricDirection.safeParse(m.direction);
      const formatted = str(m.formatted_value);
      metrics[name] = {
        name: str(m.name) ?? name,
        value: num(m.value) ?? 0,
        formatted_value: formatted ?? String(m.value),
        direction: direction.success ? direction.data : 'neutral',
        description: str(m.description),
        details: isObject(m.details) ? m.details : {},
        // The origin wrote a failed metric as value 0, "ERR": keep it out of comparisons.
        ...(formatted === 'ERR' ? { error: str(m.description) ?? 'metric calculation failed' } : {}),
      };
    }
  }
  const { adapter, version, ...agentRest } = agentInfo;
  const input: ExperimentInput = {
    id: raw.id as string,
    name: raw.name as string,
    state: 'completed',
    suite: {
      name: raw.name as string,
      version: '1.0',
      total_cases: results.length,
      ...(typeof bench.file === 'string' ? { path: bench.file } : {}),
    },
    agent: {
      adapter: str(adapter) ?? 'custom',
      options: agentRest,
      ...(typeof version === 'string' ? { version } : {}),
    },
    started_at: timestamp,
    finished_at: timestamp,
    results,
    metrics: metrics as ExperimentInput['metrics'],
    environment: { tool_version: 'agentic-evolution-harness 0.1 (imported)', node_version: '', platform: '' },
    metadata: { ...(isObject(raw.metadata) ? raw.metadata : {}), source_format: 'agentic-evolution-harness-0.1' },
  };
  const parsed = Experiment.safeParse(input);
  if (!parsed.success) {
    throw new Error(`${source}: origin result file: ${firstZodIssue(parsed.error)}`);
  }
  return parsed.data;
}

function originResult(r: unknown, i: number, timestamp: string): TestCaseResultInput {
  const where = `results.${i}`;
  if (!isObject(r) || !isObject(r.test_case)) throw new Error(`${where}.test_case: expected an object`);
  const tc = r.test_case;
  const id = str(tc.id);
  if (!id) throw new Error(`${where}.test_case.id: expected a string`);
  const out = isObject(r.output) ? r.output : {};
  const usage = isObject(out.token_usage) ? out.token_usage : null;
  const error = str(out.error);
  const calls = Array.isArray(out.tool_calls) ? out.tool_calls.filter(isObject) : [];
  const evaluations = (Array.isArray(r.evaluations) ? r.evaluations.filter(isObject) : []).map((e) => {
    const explanation = str(e.explanation) ?? '';
    return {
      evaluator: str(e.evaluator) ?? 'unknown',
      score: Math.min(1, Math.max(0, num(e.score) ?? 0)),
      passed: e.passed === true,
      explanation,
      error: explanation.startsWith('Evaluator error:'),
      details: isObject(e.details) ? e.details : {},
    };
  });
  const passed = r.passed === true;
  const score =
    evaluations.length > 0 ? evaluations.reduce((s, e) => s + e.score, 0) / evaluations.length : passed ? 1 : 0;
  const output = out.output;
  return {
    test_id: id,
    test_name: str(tc.name) ?? id,
    repeat: 0,
    status: passed ? 'passed' : error !== null ? 'error' : 'failed',
    tags: Array.isArray(tc.tags) ? tc.tags.filter((t): t is string => typeof t === 'string') : [],
    ...(typeof tc.input === 'string' || isObject(tc.input) ? { input: tc.input } : {}),
    ...(tc.expected !== undefined && tc.expected !== null ? { expected: tc.expected } : {}),
    output: {
      output: typeof output === 'string' || isObject(output) ? output : output == null ? '' : String(output),
      error,
      latency: num(out.latency),
      usage: usage
        ? { input_tokens: num(usage.prompt_tokens) ?? 0, output_tokens: num(usage.completion_tokens) ?? 0 }
        : null,
      cost: num(out.cost),
      tool_calls: calls.map((c) => ({
        tool_name: str(c.tool_name) ?? 'unknown',
        args: isObject(c.args) ? c.args : {},
        ...(c.output !== undefined && c.output !== null ? { result: c.output } : {}),
        duration: num(c.duration),
        status: c.status === 'error' ? 'error' : 'success',
        error: str(c.error),
      })),
      metadata: isObject(out.metadata) ? out.metadata : {},
    },
    evaluations,
    score,
    duration: Math.max(0, num(r.duration) ?? num(out.latency) ?? 0),
    started_at: timestamp,
    finished_at: timestamp,
    metadata: isObject(r.metadata) ? r.metadata : {},
  };
}
