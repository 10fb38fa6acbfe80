import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '@opentelemetry/semantic-conventions/incubating';
import type { AgentOutput } from '../core/agent.js';
import type { ExperimentHeader } from '../core/view.js';
import { type AttributeValue, createTracing, type TracedSpan, type Tracing, type TracingOptions } from './otel.js';
import type { AgentCallTrace, CaseTrace, EvaluatorTrace, RunTrace, RunTracer } from './types.js';

/** The GenAI semantic-convention event that carries an evaluation's verdict. */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';

/**
 * Spans of a harness run, named and attributed after the OpenTelemetry GenAI semantic conventions so any OTLP
 * back-end shows them without configuration:
 *
 *   run <suite>                       gen_ai.operation.name=invoke_workflow, gen_ai.workflow.name
 *   └─ case <id> #<repeat>            harness.case.* (status, score, attempts)
 *      ├─ invoke_agent <agent>        one per attempt; `chat <model>` for a bare model; gen_ai.usage.*
 *      │  └─ execute_tool <tool>      one per tool call the agent made (gen_ai.tool.name, error.type)
 *      └─ evaluate <evaluator>        gen_ai.evaluation.* attributes and a gen_ai.evaluation.result event
 *
 * @example const tracer = createRunTracer({ serviceName: 'harness', scrubber }); // then runExperiment({ tracer })
 */
export function createRunTracer(options: TracingOptions): RunTracer {
  const tracing = createTracing(options);
  return {
    startRun: (header) => startRun(tracing, header),
    shutdown: () => tracing.shutdown(),
  };
}

function agentIdentity(header: ExperimentHeader): {
  operation: string;
  name: string;
  extra: Record<string, AttributeValue>;
} {
  const agent = header.agent;
  const options = (agent.options ?? {}) as Record<string, unknown>;
  if (agent.adapter === 'model' && typeof options.model === 'string') {
    // A bare model is the agent: its calls are chat spans named after the model.
    return {
      operation: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      name: options.model,
      extra: {
        [ATTR_GEN_AI_REQUEST_MODEL]: options.model,
        [ATTR_GEN_AI_PROVIDER_NAME]: typeof options.provider === 'string' ? options.provider : undefined,
      },
    };
  }
  const name = agent.label || agent.adapter;
  return { operation: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, name, extra: { [ATTR_GEN_AI_AGENT_NAME]: name } };
}

function startRun(tracing: Tracing, header: ExperimentHeader): RunTrace {
  const run = tracing.start(`run ${header.suite.name}`, {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
    [ATTR_GEN_AI_WORKFLOW_NAME]: header.suite.name,
    'harness.run.id': header.id,
    'harness.suite.version': header.suite.version,
    'harness.suite.content_hash': header.suite.content_hash,
    'harness.agent.adapter': header.agent.adapter,
  });
  const agent = agentIdentity(header);
  return {
    ids: run.ids,
    startCase: (testCase, repeat) => {
      const span = tracing.start(
        `case ${testCase.id} #${repeat}`,
        { 'harness.case.id': testCase.id, 'harness.case.name': testCase.name, 'harness.case.repeat': repeat },
        { parent: run },
      );
      return caseTrace(tracing, span, agent);
    },
    end(state, metrics) {
      run.set({ 'harness.run.state': state });
      for (const m of Object.values(metrics)) run.set({ [`harness.metric.${m.name}`]: m.value });
      if (state === 'failed') run.fail('run_failed');
      run.end();
    },
  };
}

function caseTrace(tracing: Tracing, span: TracedSpan, agent: ReturnType<typeof agentIdentity>): CaseTrace {
  return {
    ids: span.ids,
    agentCall(attempt): AgentCallTrace {
      const started = Date.now();
      const call = tracing.start(
        `${agent.operation} ${agent.name}`,
        { [ATTR_GEN_AI_OPERATION_NAME]: agent.operation, ...agent.extra, 'harness.attempt': attempt },
        { parent: span, kind: 'client' },
      );
      return {
        traceparent: call.traceparent,
        end: (output) => endAgentCall(tracing, call, output, started),
      };
    },
    evaluator(name): EvaluatorTrace {
      const ev = tracing.start(`evaluate ${name}`, { [ATTR_GEN_AI_EVALUATION_NAME]: name }, { parent: span });
      return {
        end(result) {
          const verdict: Record<string, AttributeValue> = {
            [ATTR_GEN_AI_EVALUATION_NAME]: result.evaluator,
            [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: result.score,
            [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: result.passed ? 'pass' : 'fail',
            [ATTR_GEN_AI_EVALUATION_EXPLANATION]: result.explanation || undefined,
          };
          ev.set(verdict);
          ev.event(EVALUATION_EVENT, verdict);
          if (result.error) ev.fail('evaluator_error', result.explanation);
          ev.end();
        },
      };
    },
    end(result) {
      span.set({
        'harness.case.status': result.status,
        'harness.case.score': result.score,
        'harness.case.attempts': result.attempts,
      });
      if (result.status === 'error') span.fail('case_error', result.output.error);
      span.end();
    },
  };
}

function endAgentCall(tracing: Tracing, call: TracedSpan, output: AgentOutput, started: number): void {
  const ended = Date.now();
  if (output.usage) {
    call.set({
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: output.usage.input_tokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: output.usage.output_tokens,
    });
  }
  // The agent's tool calls, laid out in order inside the call (their own durations when reported).
  let cursor = started;
  for (const tool of output.tool_calls) {
    const seconds = tool.duration ?? 0;
    const start = Math.min(cursor, ended);
    const end = Math.min(start + seconds * 1000, ended);
    const span = tracing.start(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${tool.tool_name}`,
      {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: tool.tool_name,
        [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      },
      { parent: call, startTime: start },
    );
    if (tool.status === 'error') span.fail('tool_error', tool.error);
    span.end(end);
    cursor = end;
  }
  if (output.error) call.fail(output.metadata.timed_out ? 'timeout' : 'agent_error', output.error);
  call.end(ended);
}
