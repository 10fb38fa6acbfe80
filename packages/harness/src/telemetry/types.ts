import type { AgentOutput } from '../core/agent.js';
import type { ExperimentState, MetricResult } from '../core/experiment.js';
import type { EvaluationResult, TestCaseResult } from '../core/result.js';
import type { TestCase } from '../core/testcase.js';
import type { ExperimentHeader } from '../core/view.js';

// Types only: the runner and adapters name these without loading any OpenTelemetry code. The implementation
// (./otel.ts) is imported lazily, and only when tracing was asked for.

/** W3C ids of a span, as recorded in the journal and evidence so a result links to its trace. */
export interface TraceIds {
  /** 32 lowercase hex digits. */
  trace_id: string;
  /** 16 lowercase hex digits. */
  span_id: string;
}

/** The span of one agent call; `traceparent` goes to an agent reached over HTTP. */
export interface AgentCallTrace {
  readonly traceparent: string;
  end(output: AgentOutput): void;
}

export interface EvaluatorTrace {
  end(result: EvaluationResult): void;
}

/** The span of one case x repeat. */
export interface CaseTrace {
  readonly ids: TraceIds;
  agentCall(attempt: number): AgentCallTrace;
  evaluator(name: string): EvaluatorTrace;
  end(result: TestCaseResult): void;
}

/** The span of one run (or one resumed invocation of it). */
export interface RunTrace {
  readonly ids: TraceIds;
  startCase(testCase: TestCase, repeat: number): CaseTrace;
  end(state: ExperimentState, metrics: Record<string, MetricResult>): void;
}

export interface RunTracer {
  startRun(header: ExperimentHeader): RunTrace;
  /** Flush every span to the exporter and stop it. */
  shutdown(): Promise<void>;
}
