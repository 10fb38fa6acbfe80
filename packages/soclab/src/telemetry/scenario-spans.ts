import type { Tracing } from '@aeh/harness/telemetry/otel';
import type { ScenarioRunResult } from '../scenarios/runner.js';

/**
 * The spans of one scenario run, under the harness's agent-call span for its case (passed as a traceparent):
 *
 *   scenario <id>                        soclab.scenario.id, soclab.mode, outcome flags, evidence run id
 *   └─ stage <stage>                     one per investigation stage, spanning its model turns
 *      ├─ chat <model>                   one per model turn: gen_ai.operation.name=chat, gen_ai.provider.name,
 *      │                                 gen_ai.request.model, gen_ai.usage.*, gen_ai.response.finish_reasons
 *      └─ execute_tool <tool>            one per proposal the turn made, with children
 *         ├─ policy_decision             soclab.decision.outcome (allow | require_approval | deny ...), reasons
 *         ├─ approval                    when the decision required one: soclab.approval.status
 *         └─ execution                   soclab.execution.status (executed | denied | failed_closed ...)
 *
 * Built after the run from its recorded model events (their own timestamps and latencies) and proposals, so the
 * scenario runner needs no tracing code. Attribute strings pass through the tracing's scrubber; the canary
 * patterns are registered with it by the caller.
 */
export function recordScenarioSpans(tracing: Tracing, parent: string, result: ScenarioRunResult): void {
  const events = result.investigation.events;
  const times = events.map((e) => {
    const end = Date.parse(e.created_at);
    return { start: end - e.latency_ms, end };
  });
  const first = Math.min(...times.map((t) => t.start), Date.now());
  const last = Math.max(...times.map((t) => t.end), first);
  const o = result.outcome;
  const scenario = tracing.start(
    `scenario ${result.scenario_id}`,
    {
      'soclab.scenario.id': result.scenario_id,
      'soclab.scenario.version': result.scenario_version,
      'soclab.mode': result.mode,
      'soclab.run_id': result.run_id,
      'soclab.incident.id': result.incident_id,
      'soclab.investigation.status': result.investigation.status,
      'soclab.attack_succeeded': o.attack_succeeded,
      'soclab.false_block': o.false_block,
      'soclab.leaked_canary': o.leaked_canary,
      'soclab.chain_valid': result.chain.valid,
    },
    { parent, startTime: first },
  );
  const proposals = [...result.investigation.proposals];
  let stageSpan: ReturnType<Tracing['start']> | null = null;
  let stageName: string | null = null;
  let stageEnd = first;
  const closeStage = () => {
    stageSpan?.end(stageEnd);
    stageSpan = null;
  };
  events.forEach((e, i) => {
    const t = times[i] as { start: number; end: number };
    const stage = e.stage ?? 'turn';
    if (stage !== stageName) {
      closeStage();
      stageName = stage;
      stageSpan = tracing.start(`stage ${stage}`, { 'soclab.stage': stage }, { parent: scenario, startTime: t.start });
    }
    stageEnd = t.end;
    const holder = stageSpan ?? scenario;
    const turn = tracing.start(
      `chat ${e.model}`,
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': e.provider,
        'gen_ai.request.model': e.model,
        'gen_ai.usage.input_tokens': e.usage.input_tokens,
        'gen_ai.usage.output_tokens': e.usage.output_tokens,
        'gen_ai.response.finish_reasons': [e.finish_reason],
        'soclab.stage': stage,
        'soclab.policy_outcome': e.policy_outcome ?? undefined,
      },
      { parent: holder, kind: 'client', startTime: t.start },
    );
    if (e.error) turn.fail('model_error', e.error);
    turn.end(t.end);
    if (e.proposed_tool && proposals.length > 0) {
      const { proposal, result: r } = proposals.shift() as (typeof proposals)[number];
      let at = t.end;
      const step = () => at++;
      const tool = tracing.start(
        `execute_tool ${proposal.tool_name}`,
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': proposal.tool_name,
          'gen_ai.tool.type': 'function',
          'soclab.execution.status': r.status,
        },
        { parent: holder, startTime: step() },
      );
      if (r.controlled) {
        const decision = tracing.start(
          'policy_decision',
          { 'soclab.decision.outcome': r.outcome ?? 'none', 'soclab.decision.reason_codes': [...r.reason_codes] },
          { parent: tool, startTime: step() },
        );
        decision.end(step());
      }
      if (r.outcome === 'require_approval') {
        const approval = tracing.start(
          'approval',
          {
            'soclab.approval.status':
              r.status === 'awaiting_approval' ? 'pending' : r.status === 'executed' ? 'approved' : 'rejected',
          },
          { parent: tool, startTime: step() },
        );
        approval.end(step());
      }
      const execution = tracing.start(
        'execution',
        { 'soclab.execution.status': r.status },
        { parent: tool, startTime: step() },
      );
      if (r.status === 'failed_closed' || r.status === 'denied') execution.fail(r.status, r.error);
      execution.end(step());
      tool.end(step());
      stageEnd = Math.max(stageEnd, at);
    }
  });
  closeStage();
  scenario.end(Math.max(last, stageEnd));
}
