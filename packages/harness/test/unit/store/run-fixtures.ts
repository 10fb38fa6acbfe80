/**
 * Builds real run folders (journal.jsonl + experiment.json) in the on-disk format from the core zod
 * models, for store and viewer tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CaseStatus,
  Experiment,
  type ExperimentInput,
  type MetricResultInput,
  TestCaseResult,
  type TestCaseResultInput,
} from '../../../src/core/index.js';

export interface FixtureCase {
  id: string;
  name?: string;
  status: CaseStatus;
  score?: number;
  repeat?: number;
  tags?: string[];
  output?: string;
  error?: string | null;
  duration?: number;
  cost?: number;
  input?: string;
  /** Evaluators: name -> passed (score 1/0 unless given as a number). */
  evals?: Record<string, boolean | number>;
  toolCalls?: { tool_name: string; args?: Record<string, unknown>; result?: unknown; duration?: number }[];
}

export interface FixtureRun {
  id: string;
  suite?: string;
  startedAt: string;
  agentLabel?: string;
  state?: 'completed' | 'running' | 'failed' | 'cancelled';
  cases: FixtureCase[];
  metrics?: Record<string, Partial<MetricResultInput> & { value: number }>;
  /** Write experiment.json (default: when the run is not running). */
  experimentJson?: boolean;
  /** Extra raw text appended to the journal (e.g. a truncated line). */
  tail?: string;
}

export function fixtureResult(c: FixtureCase): TestCaseResult {
  const evaluations = Object.entries(c.evals ?? {}).map(([evaluator, v]) => ({
    evaluator,
    score: typeof v === 'number' ? v : v ? 1 : 0,
    passed: typeof v === 'number' ? v >= 0.5 : v,
    explanation: `${evaluator} says ${typeof v === 'number' ? v : v ? 'yes' : 'no'}`,
  }));
  const input: TestCaseResultInput = {
    test_id: c.id,
    test_name: c.name ?? `Case ${c.id}`,
    repeat: c.repeat ?? 0,
    status: c.status,
    tags: c.tags ?? [],
    input: c.input ?? `question for ${c.id}`,
    output: {
      output: c.output ?? `answer for ${c.id}`,
      error: c.error ?? (c.status === 'error' ? 'agent crashed' : null),
      latency: c.duration ?? 0.1,
      cost: c.cost ?? null,
      tool_calls: (c.toolCalls ?? []).map((t) => ({
        tool_name: t.tool_name,
        args: t.args ?? {},
        result: t.result,
        duration: t.duration ?? 0.01,
      })),
    },
    evaluations,
    score: c.score ?? (c.status === 'passed' ? 1 : 0),
    duration: c.duration ?? 0.1,
  };
  return TestCaseResult.parse(input);
}

export function fixtureExperiment(run: FixtureRun): Experiment {
  const results = run.cases.map(fixtureResult);
  const metrics = Object.fromEntries(
    Object.entries(run.metrics ?? {}).map(([name, m]) => [
      name,
      { name, formatted_value: m.formatted_value ?? m.value.toFixed(3), ...m },
    ]),
  );
  const input: ExperimentInput = {
    id: run.id,
    name: `${run.suite ?? 'demo-suite'} run`,
    state: run.state ?? 'completed',
    suite: { name: run.suite ?? 'demo-suite', version: '1.0', content_hash: 'abc123', total_cases: run.cases.length },
    agent: { adapter: 'mock', label: run.agentLabel ?? 'agent-v1', version: run.agentLabel ?? '1' },
    started_at: run.startedAt,
    finished_at: run.state === 'running' ? null : run.startedAt.replace(/:00Z$/, ':30Z'),
    results,
    metrics,
    thresholds: null,
    environment: { tool_version: '0.1.0', node_version: process.version, platform: process.platform, git_commit: null },
  };
  return Experiment.parse(input);
}

/** Write `<parent>/<folderName>/journal.jsonl` (+ experiment.json) and return the folder path. */
export function writeRunFolder(parent: string, run: FixtureRun, folderName = `run-${run.id}`): string {
  const folder = join(parent, folderName);
  mkdirSync(folder, { recursive: true });
  const experiment = fixtureExperiment(run);
  const { results, ...header } = experiment;
  const lines = [
    JSON.stringify({ type: 'header', experiment: { ...header, state: 'running', finished_at: null, metrics: {} } }),
  ];
  for (const r of results) lines.push(JSON.stringify({ type: 'result', result: r }));
  if (experiment.state !== 'running') {
    lines.push(
      JSON.stringify({
        type: 'end',
        state: experiment.state,
        finished_at: experiment.finished_at,
        metrics: experiment.metrics,
        thresholds: experiment.thresholds,
      }),
    );
  }
  writeFileSync(join(folder, 'journal.jsonl'), `${lines.join('\n')}\n${run.tail ?? ''}`);
  if (run.experimentJson ?? experiment.state !== 'running') {
    writeFileSync(join(folder, 'experiment.json'), JSON.stringify(experiment, null, 2));
  }
  return folder;
}

/** The journal line for one more result (for growing a live run). */
export function resultLine(c: FixtureCase): string {
  return `${JSON.stringify({ type: 'result', result: fixtureResult(c) })}\n`;
}

export function endLine(state: string, metrics: Record<string, { value: number }> = {}): string {
  const full = Object.fromEntries(
    Object.entries(metrics).map(([name, m]) => [name, { name, formatted_value: m.value.toFixed(3), ...m }]),
  );
  return `${JSON.stringify({ type: 'end', state, finished_at: new Date().toISOString(), metrics: full, thresholds: null })}\n`;
}
