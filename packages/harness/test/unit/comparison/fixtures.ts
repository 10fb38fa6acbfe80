import {
  type EvaluationResultInput,
  Experiment,
  type MetricResultInput,
  type TestCaseResultInput,
} from '../../../src/core/index.js';

export interface CaseSpec {
  id: string;
  passed?: boolean;
  status?: 'passed' | 'failed' | 'error' | 'skipped';
  score?: number;
  latency?: number;
  repeat?: number;
  name?: string;
  evaluations?: EvaluationResultInput[];
  output?: string;
  input?: string;
}

/** A complete Experiment built from short case specs (defaults filled by the real schema). */
export function experiment(
  id: string,
  cases: CaseSpec[],
  extra: { metrics?: Record<string, MetricResultInput>; metadata?: Record<string, unknown>; name?: string } = {},
): Experiment {
  const results: TestCaseResultInput[] = cases.map((c) => {
    const status = c.status ?? (c.passed === false ? 'failed' : 'passed');
    return {
      test_id: c.id,
      test_name: c.name ?? `case ${c.id}`,
      repeat: c.repeat ?? 0,
      status,
      input: c.input ?? `input of ${c.id}`,
      output: { output: c.output ?? `output of ${c.id}`, latency: c.latency ?? 1 },
      evaluations: c.evaluations ?? [
        { evaluator: 'exact_match', score: status === 'passed' ? 1 : 0, passed: status === 'passed' },
      ],
      score: c.score ?? (status === 'passed' ? 1 : 0),
      duration: c.latency ?? 1,
    };
  });
  return Experiment.parse({
    id,
    name: extra.name ?? `run ${id}`,
    state: 'completed',
    suite: { name: 'demo-suite', total_cases: cases.length },
    agent: { adapter: 'mock' },
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:01:00.000Z',
    results,
    metrics: extra.metrics ?? {},
    environment: { tool_version: '0.1.0', node_version: 'v20.20.0', platform: 'linux' },
    metadata: extra.metadata ?? {},
  });
}

/** `n` cases named c0..c(n-1), passing where `pass(i)` is true. */
export function cases(n: number, pass: (i: number) => boolean, more: (i: number) => Partial<CaseSpec> = () => ({})) {
  return Array.from({ length: n }, (_, i) => ({ id: `c${i}`, passed: pass(i), ...more(i) }));
}
